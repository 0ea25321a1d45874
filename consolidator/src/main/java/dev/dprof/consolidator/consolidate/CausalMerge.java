package dev.dprof.consolidator.consolidate;

import dev.dprof.format.FormatException;
import dev.dprof.format.profile.ProfileEvent;
import dev.dprof.format.profile.ProfileEventsWriter;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongConsumer;

/**
 * Merges the thread streams into one global order that respects program order (each stream is
 * consumed in order), message causality (a receive only after its send), collectives (an exit
 * only after the enters of its instance that precede it by the flavour, Becker §4.1) and handoffs
 * (a take only after its put, a started thread's first event only after the parent's
 * {@code Thread.start}) — DProf §4.5. Among the events free to go, the one
 * whose interval starts first goes next (ties: the narrower, then the lower stream index).
 * Intervals are never changed to achieve the order.
 *
 * <p>A stream whose head must wait is parked under what it waits for and put back when that is
 * emitted. Sound data always leave an event free to go (the real order is one); should
 * inconsistent data (a key reused within one thread, say) leave none, the earliest parked event
 * goes anyway and is counted as a causality conflict.
 *
 * <p>Implementation notes: the free streams are the leaves of a loser tree (each inner node
 * keeps the loser of the match played there, {@link #winner} the overall winner), one leaf per
 * stream for the whole merge, padded to a power of two. A parked or finished stream is a leaf
 * holding {@link #ABSENT}, which loses to every real head. Emitting the winner and advancing its
 * stream replays one leaf-to-root path: ⌈log₂ k⌉ matches, each against the one loser stored at
 * the node, written as conditional moves rather than branches (which way a match goes is a coin
 * toss, and mispredicted branches were most of the merge's cost). The comparison looks at the
 * heads' lower bounds first ({@code long[]}, indexed by leaf); only equal bounds, which are rare,
 * go on to the upper bound and the stream index. A released parked stream is not the winner, and
 * a loser tree cannot replay a leaf that is not, so a release rebuilds the tree (k matches; it
 * happens at most once per communication event). The hot loop allocates nothing; what parking
 * needs (maps, lists, boxing) sits in separate methods that run only for communication events,
 * so the loop stays small enough for C2 to inline. A started thread's first event may wait for two
 * things, its {@code Thread.start} ({@link ThreadStream#startWait}) and its own dependency: the
 * hot loop pays one field test for it, and a released stream is checked again before it goes.
 */
final class CausalMerge {
    /** The tie-break of a leaf without a head: loses to every stream index. */
    private static final int ABSENT = Integer.MAX_VALUE;

    private final ThreadStream[] streams;
    /** Per leaf: the head's bounds and tie-break ({@code stream}, or {@link #ABSENT}). */
    private final long[] headLo;
    private final long[] headHi;
    private final int[] tie;
    /** Leaves, a power of two ≥ the streams; leaf i is node {@code size + i}, the root node 1. */
    private final int size;
    /** The loser tree: {@code loser[n]} the leaf that lost the match at inner node n. */
    private final int[] loser;
    private int winner;
    /** Scratch for {@link #build}: the winner below each node. */
    private final int[] winners;
    /** Set when parked streams were released: the tree is rebuilt instead of replayed. */
    private boolean rebuild;
    private final Map<Integer, List<Integer>> parked = new HashMap<>();
    private final boolean[] sent;
    /** Per wait group of the collectives (CausalIndex#wire): signals still missing, and the group it then signals. */
    private final int[] entersMissing;
    private final int[] groupNext;
    private long conflicts;
    private long unbounded;
    private long emitted;
    private long firstLo = Long.MIN_VALUE;

    CausalMerge(CausalIndex index, List<ThreadStream> streams) throws FormatException {
        this.streams = streams.toArray(new ThreadStream[0]);
        int k = this.streams.length;
        this.size = Math.max(1, Integer.highestOneBit(Math.max(1, k) * 2 - 1));
        this.headLo = new long[size];
        this.headHi = new long[size];
        this.tie = new int[size];
        this.loser = new int[size];
        this.winners = new int[2 * size];
        java.util.Arrays.fill(headLo, Long.MAX_VALUE);
        java.util.Arrays.fill(headHi, Long.MAX_VALUE);
        java.util.Arrays.fill(tie, ABSENT);
        this.sent = new boolean[index.rows()];
        this.entersMissing = new int[index.groupCount()];
        this.groupNext = new int[entersMissing.length];
        for (int i = 0; i < entersMissing.length; i++) {
            entersMissing[i] = index.groupNeed(i);
            groupNext[i] = index.groupNext(i);
        }
        for (int leaf = 0; leaf < k; leaf++) {
            ThreadStream s = this.streams[leaf];
            tie[leaf] = ABSENT;
            headLo[leaf] = Long.MAX_VALUE;
            headHi[leaf] = Long.MAX_VALUE;
            if (!s.advance()) {
                s.close();
            } else if (blocked(s)) {
                park(s.waitsFor(), leaf);
            } else {
                setHead(leaf);
            }
        }
        build();
    }

    /**
     * Emits every event in order to {@code writer}; returns how many.
     *
     * @param progress told the number of events written so far, every 65 536 events
     */
    long run(ProfileEventsWriter writer, LongConsumer progress) throws FormatException, IOException {
        if (streams.length == 0) {
            return 0;
        }
        while (true) {
            int leaf = winner;
            if (tie[leaf] == ABSENT) {
                leaf = forceOneParked();
                if (leaf < 0) {
                    return emitted;
                }
            }
            ThreadStream s = streams[leaf];
            int signal = s.signals();
            if (signal != CausalIndex.NO_DEPENDENCY) {
                signal(signal);
            }
            if (s.lo() == Long.MIN_VALUE || s.hi() == Long.MAX_VALUE) {
                unbounded++;
            } else {
                if (emitted == 0) {
                    firstLo = s.lo();
                }
                writer.write(s.stream, s.kind(), s.region(), s.tick(), s.lo(), s.hi(), s.truth(ProfileEvent.NO_TRUTH),
                        s.a(), s.b());
                if ((++emitted & 0xFFFF) == 0) {
                    progress.accept(emitted);
                }
            }
            if (!s.advance()) {
                s.close();
                setAbsent(leaf);
            } else if (blocked(s)) {
                park(s.waitsFor(), leaf);
                setAbsent(leaf);
            } else {
                setHead(leaf);
            }
            if (rebuild) {
                rebuild = false;
                build();
            } else {
                replay(leaf);
            }
        }
    }

    /** The lower bound of the first event written, or {@code Long.MIN_VALUE} if none was. */
    long firstLo() {
        return firstLo;
    }

    /** Whether leaf a's head goes before leaf b's: lower bound, then upper bound, then stream index. */
    private boolean before(int a, int b) {
        long la = headLo[a];
        long lb = headLo[b];
        return la != lb ? la < lb : tieBefore(a, b);
    }

    private boolean tieBefore(int a, int b) {
        return headHi[a] != headHi[b] ? headHi[a] < headHi[b] : tie[a] < tie[b];
    }

    private void setHead(int leaf) {
        ThreadStream s = streams[leaf];
        headLo[leaf] = s.headLo;
        headHi[leaf] = s.headHi;
        tie[leaf] = s.stream;
    }

    private void setAbsent(int leaf) {
        headLo[leaf] = Long.MAX_VALUE;
        headHi[leaf] = Long.MAX_VALUE;
        tie[leaf] = ABSENT;
    }

    /** Replays the matches on the path from {@code leaf}, the winner, to the root after its head changed. */
    private void replay(int leaf) {
        int candidate = leaf;
        for (int node = (size + leaf) >>> 1; node > 0; node >>>= 1) {
            int stored = loser[node];
            boolean storedWins = before(stored, candidate);
            loser[node] = storedWins ? candidate : stored;
            candidate = storedWins ? stored : candidate;
        }
        winner = candidate;
    }

    /** Plays every match bottom-up. */
    private void build() {
        for (int leaf = 0; leaf < size; leaf++) {
            winners[size + leaf] = leaf;
        }
        for (int node = size - 1; node > 0; node--) {
            int left = winners[2 * node];
            int right = winners[2 * node + 1];
            boolean rightWins = before(right, left);
            winners[node] = rightWins ? right : left;
            loser[node] = rightWins ? left : right;
        }
        winner = winners[1];
    }

    private boolean blocked(ThreadStream s) {
        if (s.startWait != CausalIndex.NO_DEPENDENCY && satisfied(s.startWait)) {
            s.startWait = CausalIndex.NO_DEPENDENCY; // a first event may wait for its start and its own dependency
        }
        int waits = s.waitsFor();
        return waits != CausalIndex.NO_DEPENDENCY && !satisfied(waits);
    }

    private boolean satisfied(int token) {
        return token < sent.length ? sent[token] : entersMissing[token - sent.length] <= 0;
    }

    private void park(int token, int leaf) {
        parked.computeIfAbsent(token, t -> new ArrayList<>()).add(leaf);
    }

    /** Notes that {@code token} was emitted, and frees the streams that waited only for it. */
    private void signal(int token) throws FormatException {
        int chained = CausalIndex.NO_DEPENDENCY;
        if (token < sent.length) {
            sent[token] = true;
        } else if (--entersMissing[token - sent.length] == 0) {
            // a scan's group, once complete, counts for the next rank's (CausalIndex#wire)
            chained = groupNext[token - sent.length];
        }
        if (satisfied(token)) {
            List<Integer> waiting = parked.remove(token);
            if (waiting != null) {
                for (int leaf : waiting) {
                    if (blocked(streams[leaf])) {
                        park(streams[leaf].waitsFor(), leaf);
                    } else {
                        setHead(leaf);
                    }
                }
                rebuild = true;
            }
        }
        if (chained != CausalIndex.NO_DEPENDENCY) {
            signal(sent.length + chained);
        }
    }

    /** With nothing free to go, takes the parked stream whose head starts first; -1 if none. */
    private int forceOneParked() {
        int best = -1;
        int bestToken = 0;
        for (Map.Entry<Integer, List<Integer>> e : parked.entrySet()) {
            for (int leaf : e.getValue()) {
                if (best < 0 || streams[leaf].lo() < streams[best].lo()) {
                    best = leaf;
                    bestToken = e.getKey();
                }
            }
        }
        if (best >= 0) {
            conflicts++;
            rebuild = true; // the forced leaf is not the tree's winner, so it cannot be replayed
            List<Integer> list = parked.get(bestToken);
            list.remove(Integer.valueOf(best));
            if (list.isEmpty()) {
                parked.remove(bestToken);
            }
        }
        return best;
    }

    long conflicts() {
        return conflicts;
    }

    /** Events dropped because their stretch had no sound bound. */
    long unbounded() {
        return unbounded;
    }
}
