package dev.dprof.consolidator.analysis.messages;

import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.profile.ProfileException;
import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.format.EventKind;
import dev.dprof.format.FormatException;
import dev.dprof.format.HandoffRegions;
import dev.dprof.format.profile.ProfileEvent;
import dev.dprof.format.profile.ProfileEventsReader;
import java.io.IOException;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.WeakHashMap;

/**
 * The handoff edges of a consolidated profile, found by {@link HandoffMatcher}'s rule (the one the
 * consolidator's merge used), each event named by its position in the profile's causal order: an
 * edge's source (a put, or the take a back-pressure take waited for) comes before its target (a
 * take, a started thread's first event, a back-pressure take). Readers walk the profile in order
 * and find, at each event, whether later events will need it ({@link #sourcePosition}) and what it
 * waits for ({@link #target}), so they keep an event only while a take of it is still to come.
 *
 * <p>Each edge has a <em>site</em>: the region of its source, the handoff's site ({@code kind:
 * handoff}, e.g. {@code queue: LinkedBlockingQueue allocated in RequestPipeline.<init>:42}), or -1.
 * Its latency floor ({@link #floor}) is the smallest {@code max(0, lo_target − hi_source)} over the
 * site's edges: a proven lower bound on every true latency of the site, as for messages (docs/BOUNDS.md).
 *
 * <p>The long waits the agent records ({@code HandoffRegions.WAITED}) are no handoff: they are
 * never matched, and {@link #unexplainedWaits} counts those that no edge explains.
 *
 * <p>An edge whose source does not come before its target (data that contradict program order,
 * counted by the consolidation as causality conflicts) is left out. Memory while measuring: eight
 * numbers per handoff event and per thread; afterwards three per edge.
 */
public final class HandoffEdges {
    /** The edges of an opened profile, measured once (the profile folder is immutable once written). */
    private static final Map<Profile, HandoffEdges> MEASURED = Collections.synchronizedMap(new WeakHashMap<>());

    private final long[] target;
    private final long[] source;
    private final int[] site;
    private final long[] sourcePositions;
    private final int[] sourceUses;
    private final Map<Integer, Long> floors;
    private final HandoffMatcher.Matches matches;
    private final Map<Integer, Integer> unmatchedBySite;
    private final Map<Integer, Integer> unmatchedByStream;
    private final int unexplainedTakes;
    private final UnexplainedWaits waits;

    private HandoffEdges(long[] target, long[] source, int[] site, Map<Integer, Long> floors,
                         HandoffMatcher.Matches matches, Map<Integer, Integer> unmatchedBySite,
                         Map<Integer, Integer> unmatchedByStream, int unexplainedTakes, UnexplainedWaits waits) {
        this.target = target;
        this.source = source;
        this.site = site;
        this.floors = floors;
        this.matches = matches;
        this.unmatchedBySite = unmatchedBySite;
        this.unmatchedByStream = unmatchedByStream;
        this.unexplainedTakes = unexplainedTakes;
        this.waits = waits;
        Map<Long, Integer> uses = new TreeMap<>();
        for (long s : source) {
            uses.merge(s, 1, Integer::sum);
        }
        sourcePositions = new long[uses.size()];
        sourceUses = new int[uses.size()];
        int i = 0;
        for (Map.Entry<Long, Integer> u : uses.entrySet()) {
            sourcePositions[i] = u.getKey();
            sourceUses[i++] = u.getValue();
        }
    }

    /** The edges of {@code profile}: measured by another pass that fed a {@link Builder}, or by one of their own. */
    public static HandoffEdges of(Profile profile) throws ProfileException {
        HandoffEdges known = MEASURED.get(profile);
        if (known == null) {
            Builder builder = new Builder(profile.info());
            try (ProfileEventsReader events = profile.events()) {
                ProfileEvent e = new ProfileEvent();
                for (long position = 0; events.next(e); position++) {
                    builder.accept(e, position);
                }
            } catch (IOException | FormatException e) {
                throw new ProfileException(profile.dir() + ": " + e.getMessage());
            }
            known = builder.build();
            MEASURED.put(profile, known);
        }
        return known;
    }

    /** Keeps {@code edges}, measured by a pass over {@code profile}, for later {@link #of} calls. */
    public static void remember(Profile profile, HandoffEdges edges) {
        MEASURED.put(profile, edges);
    }

    /** Collects the handoff events and every thread's first event, in the profile's order. */
    public static final class Builder {
        private final int[] processOf;
        private final long[] threadOf;
        private final boolean[] seen;
        private final HandoffMatcher matcher = new HandoffMatcher();
        private final UnexplainedWaits waits = new UnexplainedWaits();
        private long[] position = new long[16];
        private long[] lo = new long[16];
        private long[] hi = new long[16];
        private int[] region = new int[16];
        private int[] stream = new int[16];
        private boolean[] take = new boolean[16];
        private long[] channel = new long[16];
        private long[] key = new long[16];
        private int size;
        private boolean any;

        public Builder(ProfileInfo info) {
            int streams = info.streams().size();
            processOf = new int[streams];
            threadOf = new long[streams];
            seen = new boolean[streams];
            for (ProfileInfo.Stream s : info.streams()) {
                processOf[s.index()] = s.process();
                threadOf[s.index()] = s.thread();
            }
        }

        /** The next event of the profile, at {@code position} in its order (events of unknown streams are ignored). */
        public void accept(ProfileEvent e, long at) {
            int s = e.stream;
            if (s < 0 || s >= seen.length) {
                return;
            }
            if (UnexplainedWaits.isWait(e)) {
                waits.event(s, e.kind, e.a, e.b, e.region); // never a thread's first event: program order skips it
                return;
            }
            if (!seen[s]) {
                seen[s] = true;
                matcher.firstEvent(processOf[s], threadOf[s], add(e, at, false));
            }
            if (e.kind == EventKind.HANDOFF_PUT) {
                any = true;
                matcher.put(processOf[s], e.a, e.b, add(e, at, false));
            } else if (e.kind == EventKind.HANDOFF_TAKE) {
                any = true;
                matcher.take(processOf[s], e.a, e.b, add(e, at, true));
            }
            waits.event(s, e.kind, e.a, e.b, e.region);
        }

        private int add(ProfileEvent e, long at, boolean isTake) {
            if (size == position.length) {
                int n = size * 2;
                position = Arrays.copyOf(position, n);
                lo = Arrays.copyOf(lo, n);
                hi = Arrays.copyOf(hi, n);
                region = Arrays.copyOf(region, n);
                stream = Arrays.copyOf(stream, n);
                take = Arrays.copyOf(take, n);
                channel = Arrays.copyOf(channel, n);
                key = Arrays.copyOf(key, n);
            }
            position[size] = at;
            lo[size] = e.lo;
            hi[size] = e.hi;
            region[size] = e.region;
            stream[size] = e.stream;
            take[size] = isTake;
            channel[size] = e.a;
            key[size] = e.b;
            return size++;
        }

        public HandoffEdges build() {
            HandoffMatcher.Matches m = any ? matcher.match() : new HandoffMatcher().match();
            int n = m.targets().length;
            long[] target = new long[n];
            long[] source = new long[n];
            int[] site = new int[n];
            Map<Integer, Long> floors = new HashMap<>();
            int kept = 0;
            for (int i = 0; i < n; i++) {
                int t = (int) m.targets()[i];
                int s = (int) m.sources()[i];
                if (position[s] >= position[t]) {
                    continue;
                }
                target[kept] = position[t];
                source[kept] = position[s];
                site[kept] = region[s];
                floors.merge(region[s], Math.max(0, lo[t] - hi[s]), Math::min);
                kept++;
            }
            // Sorted by target already (ids grow with positions), the order the matcher gives.
            // A join of a thread that recorded nothing in its process (its only event, its end, lost
            // when a shutdown hook ended after the agent's last drain, say) is counted with the
            // unmatched takes, but explains nothing a region could: it is left out of the sites and
            // threads that the incomplete-picture note names.
            Map<Integer, Set<Long>> observed = new HashMap<>();
            for (int st = 0; st < processOf.length; st++) {
                observed.computeIfAbsent(processOf[st], p -> new HashSet<>()).add(threadOf[st]);
            }
            Map<Integer, Integer> bySite = new TreeMap<>();
            Map<Integer, Integer> byStream = new TreeMap<>();
            int unexplained = 0;
            for (long id : m.unmatchedTakeIds()) {
                int u = (int) id;
                if (channel[u] == HandoffRegions.THREAD_END && !observed.getOrDefault(processOf[stream[u]],
                        Set.of()).contains(key[u])) {
                    continue;
                }
                unexplained++;
                bySite.merge(region[u], 1, Integer::sum);
                byStream.merge(stream[u], 1, Integer::sum);
            }
            return new HandoffEdges(Arrays.copyOf(target, kept), Arrays.copyOf(source, kept),
                    Arrays.copyOf(site, kept), floors, m, bySite, byStream, unexplained, waits.finish());
        }
    }

    /** Edges, in the order of their targets. */
    public int count() {
        return target.length;
    }

    /** The position of edge {@code i}'s target: a take, a started thread's first event, a back-pressure take. */
    public long target(int i) {
        return target[i];
    }

    /** The position of edge {@code i}'s source: the put, or the take a back-pressure take waited for. */
    public long source(int i) {
        return source[i];
    }

    /** Edge {@code i}'s site: its source's region, or -1. */
    public int site(int i) {
        return site[i];
    }

    /** Distinct sources, in order. */
    public int sources() {
        return sourcePositions.length;
    }

    /** The position of the {@code j}-th distinct source. */
    public long sourcePosition(int j) {
        return sourcePositions[j];
    }

    /** How many edges start at the {@code j}-th distinct source: how many later events will ask for it. */
    public int sourceUses(int j) {
        return sourceUses[j];
    }

    /** The latency floor of a site's edges in reference ticks (0 for a site without edges). */
    public long floor(int site) {
        return floors.getOrDefault(site, 0L);
    }

    /** The counts of the matching (as the consolidation wrote them to profile.json). */
    public HandoffMatcher.Matches matches() {
        return matches;
    }

    /**
     * Takes without a recorded put that a region could explain: every unmatched take but the joins
     * of threads that recorded nothing in their process.
     */
    public int unexplainedTakes() {
        return unexplainedTakes;
    }

    /** Long waits that no recorded edge explains, per thread and site ({@link UnexplainedWaits}). */
    public UnexplainedWaits unexplainedWaits() {
        return waits;
    }

    /** Takes without a recorded put, per site (region index, -1 for none). */
    public Map<Integer, Integer> unmatchedTakesBySite() {
        return unmatchedBySite;
    }

    /** Takes without a recorded put, per stream. */
    public Map<Integer, Integer> unmatchedTakesByStream() {
        return unmatchedByStream;
    }
}
