package dev.dprof.consolidator.analysis.messages;

import dev.dprof.format.HandoffRegions;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * The one rule that pairs the handoffs between threads of one process (docs/FORMAT.md,
 * "Handoffs"; {@link HandoffRegions}), used by the consolidator's merge and by every analysis that
 * reads a profile, so that both see the same edges. The caller adds the handoff events (and the
 * first event of every thread) under ids of its own, then asks for the edges once:
 * <ul>
 * <li>a take matches the put of the <em>same process</em> with equal {@code (channel, key)};
 * several takes may match one put (a future joined by several threads);</li>
 * <li>a key put twice in one process implies nothing: none of its puts has an edge, and the key is
 * counted as ambiguous;</li>
 * <li>channel {@link HandoffRegions#THREAD_START}: the put's key is the new thread's id, and what
 * takes it is that thread's first event in the process (no take event exists for it); a thread
 * without such a put (one started before recording, the main thread) is no unmatched take;</li>
 * <li>a take with {@link HandoffRegions#BACK_PRESSURE} in its channel waited for the take of
 * channel {@code a & ~BACK_PRESSURE} with key {@code b} (the one that freed the space): it matches
 * that take; a key taken more than once gives such a take no edge, and counts as ambiguous;</li>
 * <li>a put that nothing takes and a take that matches nothing are counted, never an edge;</li>
 * <li>channel {@link HandoffRegions#WAITED} is a thread's long wait, not a handoff: such a take is
 * never matched nor counted ({@link HandoffEdges} reads whether an edge explains it).</li>
 * </ul>
 * Nothing depends on the order in which events are added: the rule looks at the whole run.
 * Memory: five longs per event added.
 */
public final class HandoffMatcher {
    private static final byte PUT = 0;
    private static final byte TAKE = 1;
    private static final byte FIRST = 2;
    /** In a key's map: the key was seen more than once. */
    private static final int SEVERAL = -1;

    /**
     * What matching found: edges (an event {@code targets[i]} waits for {@code sources[i]}, both
     * callers' ids), sorted by target, then source.
     *
     * @param matched         edges: matched takes, started threads' first events, back-pressure takes
     * @param unmatchedPuts   puts (of keys put once) that nothing took
     * @param unmatchedTakes  takes without the put (back-pressure: the take) they match
     * @param ambiguousKeys   keys put more than once in a process, and back-pressure takes whose take
     *                        key was taken more than once
     * @param unmatchedTakeIds the ids of the unmatched takes, in the order they were added
     * @param unmatchedPutIds  the ids of the unmatched puts
     */
    public record Matches(long[] targets, long[] sources, int matched, int unmatchedPuts, int unmatchedTakes,
                          int ambiguousKeys, long[] unmatchedTakeIds, long[] unmatchedPutIds) {
    }

    /** A process, channel and key. Written out: see {@code CausalIndex} on generated equals. */
    private record Key(int process, long channel, long key) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && process == k.process && channel == k.channel && key == k.key;
        }

        @Override
        public int hashCode() {
            return (31 * process + Long.hashCode(channel)) * 31 + Long.hashCode(key);
        }
    }

    private byte[] side = new byte[16];
    private int[] process = new int[16];
    private long[] channel = new long[16];
    private long[] key = new long[16];
    private long[] id = new long[16];
    private int size;

    /** A {@code HANDOFF_PUT} of {@code process}, payload {@code (a, b)}. */
    public void put(int process, long a, long b, long id) {
        add(PUT, process, a, b, id);
    }

    /** A {@code HANDOFF_TAKE} of {@code process}, payload {@code (a, b)}; a long wait's ({@link HandoffRegions#WAITED}) is ignored. */
    public void take(int process, long a, long b, long id) {
        if (a != HandoffRegions.WAITED) {
            add(TAKE, process, a, b, id);
        }
    }

    /** The first event of thread {@code thread} in {@code process}: the take of its {@code Thread.start}, if recorded. */
    public void firstEvent(int process, long thread, long id) {
        add(FIRST, process, HandoffRegions.THREAD_START, thread, id);
    }

    /** Events added so far. */
    public int size() {
        return size;
    }

    private void add(byte s, int p, long a, long b, long i) {
        if (size == side.length) {
            int n = size * 2;
            side = Arrays.copyOf(side, n);
            process = Arrays.copyOf(process, n);
            channel = Arrays.copyOf(channel, n);
            key = Arrays.copyOf(key, n);
            id = Arrays.copyOf(id, n);
        }
        side[size] = s;
        process[size] = p;
        channel[size] = a;
        key[size] = b;
        id[size] = i;
        size++;
    }

    private static boolean backPressure(long channel) {
        return (channel & HandoffRegions.BACK_PRESSURE) != 0;
    }

    /** Applies the rule to every event added. */
    public Matches match() {
        Map<Key, Integer> puts = new HashMap<>();
        Map<Key, Integer> takes = new HashMap<>();
        int ambiguous = 0;
        for (int i = 0; i < size; i++) {
            if (side[i] == PUT) {
                Integer before = puts.put(new Key(process[i], channel[i], key[i]), i);
                if (before != null) {
                    puts.put(new Key(process[i], channel[i], key[i]), SEVERAL);
                    ambiguous += before == SEVERAL ? 0 : 1;
                }
            } else if (side[i] == TAKE && !backPressure(channel[i])) {
                takes.merge(new Key(process[i], channel[i], key[i]), i, (x, y) -> SEVERAL);
            }
        }
        long[] targets = new long[16];
        long[] sources = new long[16];
        int edges = 0;
        boolean[] taken = new boolean[size];
        long[] unmatched = new long[16];
        int unmatchedTakes = 0;
        for (int i = 0; i < size; i++) {
            if (side[i] == PUT) {
                continue;
            }
            boolean pressure = side[i] == TAKE && backPressure(channel[i]);
            Integer source = pressure
                    ? takes.get(new Key(process[i], channel[i] & ~HandoffRegions.BACK_PRESSURE, key[i]))
                    : puts.get(new Key(process[i], channel[i], key[i]));
            if (source == null) {
                if (side[i] == TAKE) {
                    if (unmatchedTakes == unmatched.length) {
                        unmatched = Arrays.copyOf(unmatched, unmatchedTakes * 2);
                    }
                    unmatched[unmatchedTakes++] = id[i];
                }
                continue;
            }
            if (source == SEVERAL) {
                ambiguous += pressure ? 1 : 0; // a put key's ambiguity was counted with its puts
                continue;
            }
            taken[source] = true;
            if (edges == targets.length) {
                targets = Arrays.copyOf(targets, edges * 2);
                sources = Arrays.copyOf(sources, edges * 2);
            }
            targets[edges] = id[i];
            sources[edges] = id[source];
            edges++;
        }
        long[] untaken = new long[puts.size()];
        int unmatchedPuts = 0;
        for (Map.Entry<Key, Integer> p : puts.entrySet()) {
            if (p.getValue() != SEVERAL && !taken[p.getValue()]) {
                untaken[unmatchedPuts++] = id[p.getValue()];
            }
        }
        Arrays.sort(untaken, 0, unmatchedPuts);
        Integer[] order = new Integer[edges];
        for (int e = 0; e < edges; e++) {
            order[e] = e;
        }
        long[] t = targets;
        long[] s = sources;
        Arrays.sort(order, (x, y) -> t[x] != t[y] ? Long.compare(t[x], t[y]) : Long.compare(s[x], s[y]));
        long[] sortedTargets = new long[edges];
        long[] sortedSources = new long[edges];
        for (int e = 0; e < edges; e++) {
            sortedTargets[e] = t[order[e]];
            sortedSources[e] = s[order[e]];
        }
        return new Matches(sortedTargets, sortedSources, edges, unmatchedPuts, unmatchedTakes, ambiguous,
                Arrays.copyOf(unmatched, unmatchedTakes), Arrays.copyOf(untaken, unmatchedPuts));
    }
}
