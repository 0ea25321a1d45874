package dev.dprof.consolidator.analysis.messages;

import dev.dprof.format.EventKind;
import dev.dprof.format.HandoffRegions;
import dev.dprof.format.profile.ProfileEvent;
import java.util.Arrays;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * The long waits of a profile that no recorded edge explains (docs/FORMAT.md, "Handoffs";
 * {@link HandoffRegions#WAITED}): the agent records a thread's return from a wait of at least 1 ms
 * in {@code LockSupport.park} as a take of channel {@code WAITED}, which nothing matches. Whether
 * an edge explains it is read from the thread's next event that is not itself such a wait: a take
 * of another channel (a queue's take, a future's {@code get}, a monitor's {@code wait}, a
 * {@code join} …), a receive or a barrier's exit returned because of what it waited for, and that
 * event's edge — or, without one, its own count as a take without a put — speaks for the wait.
 * Anything else (an exit, an enter, a put, the thread's end, or no event at all) leaves the wait
 * with no recorded sender: the causal replay sees program-order time where the thread in fact
 * waited for another, and the incomplete-picture note names it ({@code Incomplete}).
 *
 * <p>The analyses that follow program order skip these events ({@link #isWait}): one is stamped
 * after its thread woke, so after whatever woke it; taken as a point of program order it would pin
 * the thread's next event (the take that was waiting for a put, say) to a time that no faster put
 * could move, as if the thread had been busy until it woke. Without it, the wait is the thread's
 * program-order edge into that next event, as it was before the agent recorded waits.
 *
 * <p>Counted per thread (stream) and per site (the wait's region, where the thread waited), with
 * the waits' total length — the agent's {@code System.nanoTime()} differences, for people to read;
 * never a bound. The events are fed in each stream's program order (the profile's order keeps it);
 * memory is what is tallied per stream and site, and the waits of a stream not yet decided.
 */
public final class UnexplainedWaits {
    /** Waits and their total length in nanoseconds. */
    public record Tally(int waits, long nanos) {
        Tally plus(long waitNanos) {
            return new Tally(waits + 1, nanos + waitNanos);
        }
    }

    /** Whether {@code e} is a long wait's mark, which program order skips (see the class comment). */
    public static boolean isWait(ProfileEvent e) {
        return e.kind == EventKind.HANDOFF_TAKE && e.a == HandoffRegions.WAITED;
    }

    private int[][] pendingSite = new int[0][];
    private long[][] pendingNanos = new long[0][];
    private int[] pending = new int[0];
    private final Map<Integer, Map<Integer, Tally>> bySite = new TreeMap<>();
    private final Map<Integer, Tally> byStream = new TreeMap<>();
    private Tally total = new Tally(0, 0);
    private int explained;

    /** The next event of {@code stream}: a wait ({@code HANDOFF_TAKE} of channel {@code WAITED}) or what decides the waits before it. */
    public void event(int stream, EventKind kind, long a, long b, int region) {
        if (stream >= pending.length) {
            grow(stream + 1);
        }
        if (kind == EventKind.HANDOFF_TAKE && a == HandoffRegions.WAITED) {
            int n = pending[stream];
            if (n == pendingSite[stream].length) {
                pendingSite[stream] = Arrays.copyOf(pendingSite[stream], Math.max(4, 2 * n));
                pendingNanos[stream] = Arrays.copyOf(pendingNanos[stream], Math.max(4, 2 * n));
            }
            pendingSite[stream][n] = region;
            pendingNanos[stream][n] = Math.max(0, b);
            pending[stream] = n + 1;
            return;
        }
        if (pending[stream] > 0) {
            decide(stream, kind == EventKind.HANDOFF_TAKE || kind == EventKind.RECEIVE
                    || kind == EventKind.BARRIER_EXIT);
        }
    }

    /** The end of the profile: a wait that is a thread's last event was followed by nothing that explains it. */
    public UnexplainedWaits finish() {
        for (int s = 0; s < pending.length; s++) {
            if (pending[s] > 0) {
                decide(s, false);
            }
        }
        return this;
    }

    private void decide(int stream, boolean byAnEdge) {
        int n = pending[stream];
        pending[stream] = 0;
        if (byAnEdge) {
            explained += n;
            return;
        }
        for (int i = 0; i < n; i++) {
            long nanos = pendingNanos[stream][i];
            total = total.plus(nanos);
            byStream.merge(stream, new Tally(1, nanos), (x, y) -> x.plus(nanos));
            bySite.computeIfAbsent(stream, k -> new TreeMap<>())
                    .merge(pendingSite[stream][i], new Tally(1, nanos), (x, y) -> x.plus(nanos));
        }
    }

    private void grow(int streams) {
        int from = pending.length;
        pending = Arrays.copyOf(pending, streams);
        pendingSite = Arrays.copyOf(pendingSite, streams);
        pendingNanos = Arrays.copyOf(pendingNanos, streams);
        for (int s = from; s < streams; s++) {
            pendingSite[s] = new int[0];
            pendingNanos[s] = new long[0];
        }
    }

    /** Every wait no edge explains, and their total length. */
    public Tally total() {
        return total;
    }

    /** Waits that the next event's edge (or its own unmatched take) speaks for. */
    public int explained() {
        return explained;
    }

    /** Unexplained waits per stream. */
    public Map<Integer, Tally> byStream() {
        return Collections.unmodifiableMap(byStream);
    }

    /** Unexplained waits of {@code stream} per site (the wait's region). */
    public Map<Integer, Tally> sitesOf(int stream) {
        return Collections.unmodifiableMap(bySite.getOrDefault(stream, Map.of()));
    }
}
