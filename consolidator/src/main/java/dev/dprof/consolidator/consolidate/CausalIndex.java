package dev.dprof.consolidator.consolidate;

import dev.dprof.calibrator.estimate.MatchedMessage;
import dev.dprof.consolidator.analysis.messages.HandoffMatcher;
import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.format.CollectiveFlavour;
import dev.dprof.format.CollectiveShape;
import dev.dprof.format.EventCodes;
import dev.dprof.format.RegionInfo;
import dev.dprof.format.TcpRegions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Matches communication events into the facts the merge and the calibration rely on: each
 * receive with its send ({@code send(c, s)} ↔ {@code receive(c, s)}; for TCP byte streams the read
 * with the write of the same connection that sent its last byte, see {@link TcpRegions}, the
 * connections' two ends paired by {@link TcpFlows}), each collective exit with the
 * enters of its instance (same region name and key) that precede it by the instance's flavour
 * ({@link #wire}), and each handoff between threads of one process with what it waits for, by
 * {@link HandoffMatcher}'s rule (a take its put; a started thread's first event the parent's
 * {@code Thread.start}; a back-pressure take the take that freed the space). Nothing is invented: a
 * receive without a send, a send without a receive, a key sent twice, a TCP offset written twice
 * on one flow or a connection whose two ends cannot be told apart from others' is reported and
 * imposes no order: only an unambiguous match becomes a {@link #matched} message. Handoffs never become {@link #matched} messages: they join threads of one clock domain,
 * so they say nothing about clocks.
 *
 * <p>Communication events are identified in the second pass by their ordinal among the
 * communication events of their thread, which both passes see in the same order.
 */
final class CausalIndex {
    static final int NO_DEPENDENCY = -1;
    /** A TCP write offset recorded twice on one flow: what a read reaching it waits for is not known. */
    private static final int AMBIGUOUS_WRITE = -1;

    private final RunInventory inventory;
    /** Per stream (process, thread), by ordinal: what each communication event waits for. */
    private final Map<StreamId, int[]> dependencies = new HashMap<>();
    /** Per stream, by ordinal: what each communication event signals (a send's row, an enter's instance). */
    private final Map<StreamId, int[]> signals = new HashMap<>();
    private final List<MatchedMessage> matched = new ArrayList<>();
    private final java.util.Set<Integer> matchedTcpWrites = new java.util.HashSet<>();
    /** Per wait group: signals needed, and the group it signals once satisfied. */
    private final List<Integer> need = new ArrayList<>();
    private final List<Integer> next = new ArrayList<>();
    private final int[] groupNeed;
    private final int[] groupNext;
    private final List<String> incomplete = new ArrayList<>();
    private final List<String> malformed = new ArrayList<>();
    private final UnmatchedCounts unmatched = new UnmatchedCounts();
    private int ambiguous;
    /** TCP write offsets recorded twice on one flow, and the reads that ended in such a write's bytes. */
    private int duplicateOffsets;
    private int droppedReceives;
    private final TcpFlows tcp;
    private int barrierInstances;
    /** Per stream: the put its first event waits for (a {@code Thread.start}), when recorded. */
    private final Map<StreamId, Integer> startWaits = new HashMap<>();
    private final HandoffMatcher.Matches handoffs;

    // The keys' equals and hashCode are written out: generated ones are bound at their first call
    // through method handles whose classes the JDK spins at run time (docs/DESIGN.md, "Start-up").

    /** A thread of a process. */
    record StreamId(int process, long thread) {
        @Override
        public boolean equals(Object o) {
            return o instanceof StreamId id && process == id.process && thread == id.thread;
        }

        @Override
        public int hashCode() {
            return 31 * process + Long.hashCode(thread);
        }
    }

    private record MessageKey(long channel, long key) {
        @Override
        public boolean equals(Object o) {
            return o instanceof MessageKey k && channel == k.channel && key == k.key;
        }

        @Override
        public int hashCode() {
            return 31 * Long.hashCode(channel) + Long.hashCode(key);
        }
    }

    private record BarrierKey(String region, long key) {
        @Override
        public boolean equals(Object o) {
            return o instanceof BarrierKey k && key == k.key && region.equals(k.region);
        }

        @Override
        public int hashCode() {
            return 31 * region.hashCode() + Long.hashCode(key);
        }
    }

    CausalIndex(RunInventory inventory) {
        this.inventory = inventory;
        this.tcp = new TcpFlows(inventory);
        LongColumns c = inventory.communication;
        int rows = c.size();
        Map<StreamId, Integer> ordinals = new HashMap<>();
        int[] ordinal = new int[rows];
        for (int r = 0; r < rows; r++) {
            StreamId id = new StreamId((int) c.get(r, RunInventory.PROCESS), c.get(r, RunInventory.THREAD));
            ordinal[r] = ordinals.merge(id, 1, Integer::sum) - 1;
        }
        ordinals.forEach((id, n) -> {
            int[] deps = new int[n];
            java.util.Arrays.fill(deps, NO_DEPENDENCY);
            dependencies.put(id, deps);
            int[] signal = new int[n];
            java.util.Arrays.fill(signal, NO_DEPENDENCY);
            signals.put(id, signal);
        });

        Map<MessageKey, Integer> sends = new HashMap<>();
        Map<Long, java.util.TreeMap<Long, Integer>> tcpWrites = new HashMap<>();
        for (int r = 0; r < rows; r++) {
            TcpFlows.OfProcess tcp = tcp(r);
            if (c.get(r, RunInventory.KIND) == EventCodes.SEND && tcp != null
                    && (int) c.get(r, RunInventory.REGION) == tcp.writeRegion) {
                long flow = tcp.flow(tcp.writeRegion, c.get(r, RunInventory.A));
                var writes = tcpWrites.computeIfAbsent(flow, k -> new java.util.TreeMap<>());
                Integer previous = writes.put(c.get(r, RunInventory.B), r);
                if (previous != null) {
                    // Two writes start at one offset: which sent the byte is not known, so neither constrains.
                    writes.put(c.get(r, RunInventory.B), AMBIGUOUS_WRITE);
                    duplicateOffsets++;
                    ambiguous++;
                }
            } else if (c.get(r, RunInventory.KIND) == EventCodes.SEND) {
                Integer previous = sends.put(new MessageKey(c.get(r, RunInventory.A), c.get(r, RunInventory.B)), r);
                if (previous != null) {
                    ambiguous++;
                    sends.put(new MessageKey(c.get(r, RunInventory.A), c.get(r, RunInventory.B)), -1);
                }
            }
        }
        Map<MessageKey, Integer> received = new HashMap<>();
        Map<Long, Long> tcpReadEnds = new HashMap<>();
        Map<BarrierKey, CollectiveRows> instances = new java.util.LinkedHashMap<>();
        for (int r = 0; r < rows; r++) {
            long kind = c.get(r, RunInventory.KIND);
            StreamId id = new StreamId((int) c.get(r, RunInventory.PROCESS), c.get(r, RunInventory.THREAD));
            TcpFlows.OfProcess tcp = tcp(r);
            if (kind == EventCodes.RECEIVE && tcp != null && (int) c.get(r, RunInventory.REGION) == tcp.readRegion) {
                long flow = tcp.flow(tcp.readRegion, c.get(r, RunInventory.A));
                java.util.TreeMap<Long, Integer> writes = tcpWrites.get(flow);
                var write = writes == null ? null : writes.floorEntry(c.get(r, RunInventory.B) - 1);
                if (write == null) {
                    unmatched.add("tcp", UnmatchedCounts.RECEIVE, tcpReason(r, false));
                    continue;
                }
                tcpReadEnds.merge(flow, c.get(r, RunInventory.B), Math::max);
                if (write.getValue() == AMBIGUOUS_WRITE) {
                    droppedReceives++;
                    continue;
                }
                matchedTcpWrites.add(write.getValue());
                link(id, ordinal, r, write.getValue());
            } else if (kind == EventCodes.RECEIVE) {
                MessageKey key = new MessageKey(c.get(r, RunInventory.A), c.get(r, RunInventory.B));
                Integer send = sends.get(key);
                if (send == null || send < 0) {
                    unmatched.add(regionName(r), UnmatchedCounts.RECEIVE,
                            send == null ? UnmatchedCounts.NO_SEND : UnmatchedCounts.KEY_SENT_TWICE);
                    continue;
                }
                received.merge(key, 1, Integer::sum);
                link(id, ordinal, r, send);
            } else if (kind == EventCodes.BARRIER_ENTER || kind == EventCodes.BARRIER_EXIT) {
                instances.computeIfAbsent(new BarrierKey(regionName(r), c.get(r, RunInventory.A)),
                        k -> new CollectiveRows()).add(kind == EventCodes.BARRIER_ENTER, r);
            }
        }
        for (Map.Entry<MessageKey, Integer> e : sends.entrySet()) {
            if (e.getValue() >= 0 && !received.containsKey(e.getKey())) {
                unmatched.add(regionName(e.getValue()), UnmatchedCounts.SEND, UnmatchedCounts.NO_RECEIVE);
            }
        }
        // A write is received when some read of its flow ended past its first byte: a read that
        // took the bytes of several writes is matched with the last of them only, but it received
        // them all, so only writes no read reached count as unmatched (a duplicated offset counts
        // as ambiguous instead).
        for (Map.Entry<Long, java.util.TreeMap<Long, Integer>> flow : tcpWrites.entrySet()) {
            long readEnd = tcpReadEnds.getOrDefault(flow.getKey(), Long.MIN_VALUE);
            for (Map.Entry<Long, Integer> w : flow.getValue().entrySet()) {
                if (w.getValue() != AMBIGUOUS_WRITE && !matchedTcpWrites.contains(w.getValue())
                        && w.getKey() >= readEnd) {
                    unmatched.add("tcp", UnmatchedCounts.SEND, tcpReason(w.getValue(), true));
                }
            }
        }
        barrierInstances = instances.size();
        instances.forEach((key, rowsOf) -> wire(key, rowsOf, ordinal));
        handoffs = handoffs(ordinal);
        groupNeed = need.stream().mapToInt(Integer::intValue).toArray();
        groupNext = next.stream().mapToInt(Integer::intValue).toArray();
    }

    /**
     * The happens-before edges of one collective instance, by its flavour (Becker et al. 2009,
     * §4.1), as wait groups: a group is satisfied once the enters that signal it have all been
     * emitted (and, when chained, the group before it is satisfied); exits wait for a group.
     * N-to-N: one group of every enter, for every exit. 1-to-N: one group of the root's enter,
     * for every exit. N-to-1: one group of every enter, for the root's exit. Scan: a chain of
     * groups in rank order, group k holding the enters of the k-th rank present and the group
     * before it; the exit of rank j waits for the group of the greatest rank ≤ j (exscan: < j).
     * An instance whose events disagree on their shape implies no order and is reported, as is one
     * short of enters, exits or its root.
     */
    private void wire(BarrierKey key, CollectiveRows rowsOf, int[] ordinal) {
        LongColumns c = inventory.communication;
        int rows = c.size();
        CollectiveShape shape = rowsOf.shape(c);
        if (shape == null) {
            malformed.add(key.region() + " key " + key.key());
            return;
        }
        CollectiveFlavour flavour = shape.flavour();
        List<Integer> enterRows = rowsOf.enters;
        List<Integer> exitRows = rowsOf.exits;
        if (enterRows.size() != shape.participants() || exitRows.size() != shape.participants()
                || flavour.rooted && !rowsOf.hasRoot(c, shape.root())) {
            incomplete.add(key.region() + " key " + key.key() + " (" + shape + "): " + enterRows.size()
                    + " enters, " + exitRows.size() + " exits" + (flavour.rooted && !rowsOf.hasRoot(c, shape.root())
                    ? ", the root's missing" : ""));
        }
        if (flavour == CollectiveFlavour.SCAN || flavour == CollectiveFlavour.EXSCAN) {
            java.util.TreeMap<Long, Integer> groupOfRank = new java.util.TreeMap<>();
            for (int r : enterRows) {
                groupOfRank.putIfAbsent(rankOf(r), 0);
            }
            int previous = NO_DEPENDENCY;
            for (Map.Entry<Long, Integer> rank : groupOfRank.entrySet()) {
                int g = newGroup(previous == NO_DEPENDENCY ? 0 : 1);
                if (previous != NO_DEPENDENCY) {
                    next.set(previous, g);
                }
                rank.setValue(g);
                previous = g;
            }
            for (int r : enterRows) {
                int g = groupOfRank.get(rankOf(r));
                need.set(g, need.get(g) + 1);
                signal(r, ordinal, rows + g);
            }
            for (int r : exitRows) {
                Map.Entry<Long, Integer> g = flavour == CollectiveFlavour.SCAN
                        ? groupOfRank.floorEntry(rankOf(r)) : groupOfRank.lowerEntry(rankOf(r));
                if (g != null) {
                    depend(r, ordinal, rows + g.getValue());
                }
            }
            return;
        }
        int g = newGroup(0);
        for (int r : enterRows) {
            if (flavour != CollectiveFlavour.ONE_TO_N || rankOf(r) == shape.root()) {
                need.set(g, need.get(g) + 1);
                signal(r, ordinal, rows + g);
            }
        }
        for (int r : exitRows) {
            if (flavour != CollectiveFlavour.N_TO_ONE || rankOf(r) == shape.root()) {
                depend(r, ordinal, rows + g);
            }
        }
    }

    /**
     * The handoff edges: a take (or a back-pressure take) waits for its source row, which signals
     * itself; a started thread's first event, which need not be a communication event, waits
     * through {@link #startWait}. First events get the ids {@code rows + n}, n counting the streams.
     */
    private HandoffMatcher.Matches handoffs(int[] ordinal) {
        LongColumns c = inventory.communication;
        int rows = c.size();
        HandoffMatcher matcher = new HandoffMatcher();
        for (int r = 0; r < rows; r++) {
            long kind = c.get(r, RunInventory.KIND);
            if (kind == EventCodes.HANDOFF_PUT) {
                matcher.put((int) c.get(r, RunInventory.PROCESS), c.get(r, RunInventory.A), c.get(r, RunInventory.B), r);
            } else if (kind == EventCodes.HANDOFF_TAKE) {
                matcher.take((int) c.get(r, RunInventory.PROCESS), c.get(r, RunInventory.A), c.get(r, RunInventory.B), r);
            }
        }
        if (matcher.size() == 0) {
            return matcher.match();
        }
        List<StreamId> firsts = new ArrayList<>();
        for (RunInventory.Process p : inventory.processes()) {
            for (long thread : p.threads()) {
                matcher.firstEvent(p.index(), thread, rows + firsts.size());
                firsts.add(new StreamId(p.index(), thread));
            }
        }
        HandoffMatcher.Matches m = matcher.match();
        for (long take : m.unmatchedTakeIds()) {
            unmatched.add(UnmatchedCounts.handoffKind(regionName((int) take)), UnmatchedCounts.TAKE,
                    UnmatchedCounts.NO_PUT);
        }
        for (long put : m.unmatchedPutIds()) {
            String kind = UnmatchedCounts.handoffKind(regionName((int) put));
            unmatched.add(kind, UnmatchedCounts.PUT, UnmatchedCounts.notTaken(kind));
        }
        for (int e = 0; e < m.targets().length; e++) {
            int source = (int) m.sources()[e];
            long target = m.targets()[e];
            signal(source, ordinal, source);
            if (target < rows) {
                depend((int) target, ordinal, source);
            } else {
                startWaits.put(firsts.get((int) (target - rows)), source);
            }
        }
        return m;
    }

    private int newGroup(int initialNeed) {
        need.add(initialNeed);
        next.add(NO_DEPENDENCY);
        return need.size() - 1;
    }

    private long rankOf(int row) {
        return CollectiveShape.unpack(inventory.communication.get(row, RunInventory.B)).rank();
    }

    private StreamId streamOf(int row) {
        LongColumns c = inventory.communication;
        return new StreamId((int) c.get(row, RunInventory.PROCESS), c.get(row, RunInventory.THREAD));
    }

    private void signal(int row, int[] ordinal, int token) {
        signals.get(streamOf(row))[ordinal[row]] = token;
    }

    private void depend(int row, int[] ordinal, int token) {
        dependencies.get(streamOf(row))[ordinal[row]] = token;
    }

    /** The enter and exit rows of one collective instance. */
    private static final class CollectiveRows {
        final List<Integer> enters = new ArrayList<>();
        final List<Integer> exits = new ArrayList<>();

        void add(boolean enter, int row) {
            (enter ? enters : exits).add(row);
        }

        /**
         * The instance's shape when all its events agree on flavour, participants and root, no rank
         * lies outside the participants and, where ranks matter, no rank enters or exits twice;
         * else null (malformed).
         */
        CollectiveShape shape(LongColumns c) {
            CollectiveShape first = CollectiveShape.unpack(c.get(enters.isEmpty() ? exits.get(0) : enters.get(0),
                    RunInventory.B));
            if (first.flavour() == null) {
                return null;
            }
            for (List<Integer> side : List.of(enters, exits)) {
                java.util.Set<Long> ranks = new java.util.HashSet<>();
                for (int r : side) {
                    CollectiveShape s = CollectiveShape.unpack(c.get(r, RunInventory.B));
                    if (s.flavour() != first.flavour() || s.participants() != first.participants()
                            || first.flavour().rooted && s.root() != first.root()
                            || first.flavour().ranked && (s.rank() >= first.participants() || !ranks.add(s.rank()))) {
                        return null;
                    }
                }
            }
            return first;
        }

        boolean hasRoot(LongColumns c, long root) {
            return enters.stream().anyMatch(r -> CollectiveShape.unpack(c.get(r, RunInventory.B)).rank() == root);
        }
    }

    /** Records that receive {@code r} waits for send {@code send}, and the pair for the calibration. */
    private void link(StreamId receiver, int[] ordinal, int r, int send) {
        LongColumns c = inventory.communication;
        dependencies.get(receiver)[ordinal[r]] = send;
        signals.get(new StreamId((int) c.get(send, RunInventory.PROCESS), c.get(send, RunInventory.THREAD)))
                [ordinal[send]] = send;
        matched.add(new MatchedMessage(domain(send), c.get(send, RunInventory.TICK), domain(r), c.get(r, RunInventory.TICK)));
    }

    private String domain(int row) {
        return inventory.processes().get((int) inventory.communication.get(row, RunInventory.PROCESS)).header().domainId();
    }

    /** The TCP regions and connection ends of the row's process, or null when it has none. */
    private TcpFlows.OfProcess tcp(int row) {
        return tcp.process((int) inventory.communication.get(row, RunInventory.PROCESS));
    }

    private String regionName(int row) {
        RunInventory.Process p = inventory.processes().get((int) inventory.communication.get(row, RunInventory.PROCESS));
        RegionInfo info = p.regions().get((int) inventory.communication.get(row, RunInventory.REGION));
        return info == null ? "#" + inventory.communication.get(row, RunInventory.REGION) : info.name();
    }

    /** Dependencies of a thread's communication events by ordinal; a value ≥ rows is a wait group. */
    int[] dependencies(int process, long thread) {
        return dependencies.getOrDefault(new StreamId(process, thread), new int[0]);
    }

    /**
     * The row of the {@code Thread.start} put that thread {@code thread}'s first event waits for, or
     * {@link #NO_DEPENDENCY}.
     */
    int startWait(int process, long thread) {
        return startWaits.getOrDefault(new StreamId(process, thread), NO_DEPENDENCY);
    }

    /** What a thread's communication events signal, by ordinal (a send's row, an enter's rows + instance). */
    int[] signals(int process, long thread) {
        return signals.getOrDefault(new StreamId(process, thread), new int[0]);
    }

    /** The row count: dependency values below it are send rows, at or above it wait groups. */
    int rows() {
        return inventory.communication.size();
    }

    /** Wait groups of the collectives ({@link #wire}): {@code rows() + group} is a token. */
    int groupCount() {
        return groupNeed.length;
    }

    /** How many signals a group needs: its enters, plus one for the group chained before it. */
    int groupNeed(int group) {
        return groupNeed[group];
    }

    /** The group a group signals once satisfied (a scan's next rank), or {@link #NO_DEPENDENCY}. */
    int groupNext(int group) {
        return groupNext[group];
    }

    /** One line per collective instance short of enters, exits or its root, or malformed; at most a few named. */
    List<String> collectiveProblems() {
        List<String> lines = new ArrayList<>();
        if (!incomplete.isEmpty()) {
            lines.add(incomplete.size() + " collective instances not entered and left once by each participant "
                    + "(their recorded edges kept, none invented): "
                    + String.join("; ", incomplete.subList(0, Math.min(3, incomplete.size())))
                    + (incomplete.size() > 3 ? "; …" : ""));
        }
        if (!malformed.isEmpty()) {
            lines.add(malformed.size() + " collective instances whose events disagree on flavour, participants, root "
                    + "or ranks (no order imposed): " + String.join("; ", malformed.subList(0, Math.min(3, malformed.size())))
                    + (malformed.size() > 3 ? "; …" : ""));
        }
        return lines;
    }

    int barrierInstanceCount() {
        return barrierInstances;
    }

    List<MatchedMessage> matched() {
        return matched;
    }

    int unmatchedSends() {
        return unmatched.total(UnmatchedCounts.SEND);
    }

    /** The unmatched events by kind, event and reason, handoffs included. */
    List<ProfileInfo.Unmatched> unmatched() {
        return unmatched.rows();
    }

    /** Why a TCP write or read of {@code row} matched nothing, by how its connection's ends were paired. */
    private String tcpReason(int row, boolean write) {
        LongColumns c = inventory.communication;
        TcpFlows.OfProcess p = tcp(row);
        TcpFlows.End end = p.endOf((int) c.get(row, RunInventory.REGION), c.get(row, RunInventory.A));
        if (end == null) {
            return UnmatchedCounts.UNDESCRIBED;
        }
        return switch (end.state) {
            case NO_PEER -> UnmatchedCounts.PEER_NOT_PROFILED;
            case AMBIGUOUS -> UnmatchedCounts.NOT_TOLD_APART;
            case PAIRED -> write ? UnmatchedCounts.NOT_READ : UnmatchedCounts.WRITTEN_BEFORE;
        };
    }

    int unmatchedReceives() {
        return unmatched.total(UnmatchedCounts.RECEIVE);
    }

    int ambiguousKeys() {
        return ambiguous;
    }

    /** The run's TCP connections, their pairing and flows. */
    TcpFlows tcpFlows() {
        return tcp;
    }

    /** TCP write offsets recorded twice on one flow (neither write constrains anything). */
    int duplicateOffsets() {
        return duplicateOffsets;
    }

    /** TCP reads dropped because the write that sent their last byte was ambiguous. */
    int droppedReceives() {
        return droppedReceives;
    }

    /** The handoffs' edges and counts. */
    HandoffMatcher.Matches handoffs() {
        return handoffs;
    }
}
