package dev.dprof.consolidator.consolidate;

import dev.dprof.calibrator.estimate.MatchedMessage;
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
 * with the write that sent its last byte, see {@link TcpRegions}), each barrier exit with the
 * enters of its instance (same barrier region name and key). Nothing is invented: a receive
 * without a send, a send without a receive, or a key sent twice is reported and imposes no order.
 *
 * <p>Communication events are identified in the second pass by their ordinal among the
 * communication events of their thread, which both passes see in the same order.
 */
final class CausalIndex {
    static final int NO_DEPENDENCY = -1;

    private final RunInventory inventory;
    /** Per stream (process, thread), by ordinal: what each communication event waits for. */
    private final Map<StreamId, int[]> dependencies = new HashMap<>();
    /** Per stream, by ordinal: what each communication event signals (a send's row, an enter's instance). */
    private final Map<StreamId, int[]> signals = new HashMap<>();
    private final List<MatchedMessage> matched = new ArrayList<>();
    private final java.util.Set<Integer> matchedTcpWrites = new java.util.HashSet<>();
    private final int[] barrierEnters;
    private int unmatchedSends;
    private int unmatchedReceives;
    private int ambiguous;
    private int barrierInstances;

    /** A thread of a process. */
    record StreamId(int process, long thread) {
    }

    private record MessageKey(long channel, long key) {
    }

    private record BarrierKey(String region, long key) {
    }

    CausalIndex(RunInventory inventory) {
        this.inventory = inventory;
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
            if (c.get(r, RunInventory.KIND) == EventCodes.SEND && TcpRegions.WRITE.equals(regionName(r))) {
                Integer previous = tcpWrites.computeIfAbsent(c.get(r, RunInventory.A), k -> new java.util.TreeMap<>())
                        .put(c.get(r, RunInventory.B), r);
                if (previous != null) {
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
        Map<BarrierKey, Integer> instances = new HashMap<>();
        List<Integer> enters = new ArrayList<>();
        for (int r = 0; r < rows; r++) {
            long kind = c.get(r, RunInventory.KIND);
            StreamId id = new StreamId((int) c.get(r, RunInventory.PROCESS), c.get(r, RunInventory.THREAD));
            if (kind == EventCodes.RECEIVE && TcpRegions.READ.equals(regionName(r))) {
                java.util.TreeMap<Long, Integer> writes = tcpWrites.get(c.get(r, RunInventory.A));
                var write = writes == null ? null : writes.floorEntry(c.get(r, RunInventory.B) - 1);
                if (write == null) {
                    unmatchedReceives++;
                    continue;
                }
                tcpReadEnds.merge(c.get(r, RunInventory.A), c.get(r, RunInventory.B), Math::max);
                matchedTcpWrites.add(write.getValue());
                link(id, ordinal, r, write.getValue());
            } else if (kind == EventCodes.RECEIVE) {
                MessageKey key = new MessageKey(c.get(r, RunInventory.A), c.get(r, RunInventory.B));
                Integer send = sends.get(key);
                if (send == null || send < 0) {
                    unmatchedReceives++;
                    continue;
                }
                received.merge(key, 1, Integer::sum);
                link(id, ordinal, r, send);
            } else if (kind == EventCodes.BARRIER_ENTER || kind == EventCodes.BARRIER_EXIT) {
                BarrierKey key = new BarrierKey(regionName(r), c.get(r, RunInventory.A));
                int instance = instances.computeIfAbsent(key, k -> {
                    enters.add(0);
                    return enters.size() - 1;
                });
                if (kind == EventCodes.BARRIER_ENTER) {
                    enters.set(instance, enters.get(instance) + 1);
                    signals.get(id)[ordinal[r]] = rows + instance;
                } else {
                    dependencies.get(id)[ordinal[r]] = rows + instance;
                }
            }
        }
        for (Map.Entry<MessageKey, Integer> e : sends.entrySet()) {
            if (e.getValue() >= 0 && !received.containsKey(e.getKey())) {
                unmatchedSends++;
            }
        }
        // A write is received when some read of its flow ended past its first byte: a read that
        // took the bytes of several writes is matched with the last of them only, but it received
        // them all, so only writes no read reached count as unmatched.
        for (Map.Entry<Long, java.util.TreeMap<Long, Integer>> flow : tcpWrites.entrySet()) {
            long readEnd = tcpReadEnds.getOrDefault(flow.getKey(), Long.MIN_VALUE);
            for (Map.Entry<Long, Integer> w : flow.getValue().entrySet()) {
                if (!matchedTcpWrites.contains(w.getValue()) && w.getKey() >= readEnd) {
                    unmatchedSends++;
                }
            }
        }
        barrierInstances = instances.size();
        barrierEnters = enters.stream().mapToInt(Integer::intValue).toArray();
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

    private String regionName(int row) {
        RunInventory.Process p = inventory.processes().get((int) inventory.communication.get(row, RunInventory.PROCESS));
        RegionInfo info = p.regions().get((int) inventory.communication.get(row, RunInventory.REGION));
        return info == null ? "#" + inventory.communication.get(row, RunInventory.REGION) : info.name();
    }

    /** Dependencies of a thread's communication events by ordinal; a value ≥ rows is a barrier instance. */
    int[] dependencies(int process, long thread) {
        return dependencies.getOrDefault(new StreamId(process, thread), new int[0]);
    }

    /** What a thread's communication events signal, by ordinal (a send's row, an enter's rows + instance). */
    int[] signals(int process, long thread) {
        return signals.getOrDefault(new StreamId(process, thread), new int[0]);
    }

    /** The row count: dependency values below it are send rows, at or above it barrier instances. */
    int rows() {
        return inventory.communication.size();
    }

    /** How many enters the barrier instance has (an exit waits for all of them). */
    int barrierEnters(int instance) {
        return barrierEnters[instance];
    }

    int barrierInstanceCount() {
        return barrierInstances;
    }

    List<MatchedMessage> matched() {
        return matched;
    }

    int unmatchedSends() {
        return unmatchedSends;
    }

    int unmatchedReceives() {
        return unmatchedReceives;
    }

    int ambiguousKeys() {
        return ambiguous;
    }
}
