package dev.dprof.consolidator.analysis.causal;

import dev.dprof.consolidator.analysis.messages.MessageMatcher;
import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.profile.ProfileException;
import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.format.FormatException;
import dev.dprof.format.profile.ProfileEvent;
import dev.dprof.format.profile.ProfileEventsReader;
import java.io.IOException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The first pass of the causal analyses: the measured minimum latency of every cross-thread edge
 * kind, and the dynamic instance ids each region was entered with (per call, or fixed by a
 * process at its start).
 *
 * <p>A latency floor is a proven lower bound on every true latency of its kind: for messages from
 * process p to q, the smallest {@code max(0, lo_receive − hi_send)} over their matched messages;
 * for a barrier region, the smallest {@code max(0, lo_exit − max hi_enter)} over its instances.
 * The what-if never lets a receive come sooner than its send plus the floor, nor a barrier exit
 * sooner than the last enter plus the floor ("elastic, never shorter than the measured minimum
 * latency"). The floors are parameters of the model: the bounds and the truth are computed with
 * the same ones.
 */
final class LatencyFloors {
    private final int processes;
    private final long[] message;
    private final Map<Integer, Long> barrier;
    private final Map<Integer, Set<Long>> instances;

    private LatencyFloors(int processes, long[] message, Map<Integer, Long> barrier, Map<Integer, Set<Long>> instances) {
        this.processes = processes;
        this.message = message;
        this.barrier = barrier;
        this.instances = instances;
    }

    private record Sent(int process, long hi) {
    }

    private record BarrierKey(int region, long key) {
    }

    static LatencyFloors measure(Profile profile) throws ProfileException {
        ProfileInfo info = profile.info();
        int processes = info.processes().size();
        int[] processOf = new int[info.streams().size()];
        for (ProfileInfo.Stream s : info.streams()) {
            processOf[s.index()] = s.process();
        }
        long[] message = new long[processes * processes];
        Arrays.fill(message, Long.MAX_VALUE);
        Map<Integer, Long> barrier = new HashMap<>();
        Map<BarrierKey, Long> lastEnter = new HashMap<>();
        Map<Integer, Set<Long>> instances = new TreeMap<>();
        MessageMatcher<Sent> matcher = new MessageMatcher<>(info);
        try (ProfileEventsReader events = profile.events()) {
            ProfileEvent e = new ProfileEvent();
            while (events.next(e)) {
                if (e.stream < 0 || e.stream >= processOf.length) {
                    throw new ProfileException("an event of stream " + e.stream + ", which profile.json does not list");
                }
                int process = processOf[e.stream];
                switch (e.kind) {
                    case SEND -> matcher.send(e, new Sent(process, e.hi));
                    case RECEIVE -> {
                        Sent s = matcher.receive(e);
                        if (s != null) {
                            int pair = s.process * processes + process;
                            message[pair] = Math.min(message[pair], Math.max(0, e.lo - s.hi));
                        }
                    }
                    case BARRIER_ENTER -> lastEnter.merge(new BarrierKey(e.region, e.a), e.hi, Math::max);
                    case BARRIER_EXIT -> {
                        Long enter = lastEnter.get(new BarrierKey(e.region, e.a));
                        if (enter != null) {
                            barrier.merge(e.region, Math.max(0, e.lo - enter), Math::min);
                        }
                    }
                    case ENTER_INSTANCE -> instances.computeIfAbsent(e.region, r -> new TreeSet<>()).add(e.a);
                    default -> {
                    }
                }
            }
        } catch (IOException | FormatException e) {
            throw new ProfileException(profile.dir() + ": " + e.getMessage());
        }
        for (ProfileInfo.Process p : info.processes()) {
            for (ProfileInfo.Region r : info.regions()) {
                Long fixed = p.instances().get(r.name());
                if (fixed != null) {
                    instances.computeIfAbsent(r.index(), k -> new TreeSet<>()).add(fixed);
                }
            }
        }
        return new LatencyFloors(processes, message, barrier, instances);
    }

    /** The floor of messages from process {@code from} to process {@code to}, in reference ticks. */
    long message(int from, int to) {
        long f = message[from * processes + to];
        return f == Long.MAX_VALUE ? 0 : f;
    }

    /** The floor from the last enter of an instance of barrier {@code region} to any of its exits. */
    long barrier(int region) {
        return barrier.getOrDefault(region, 0L);
    }

    /** The dynamic instance ids of each region that has them, in order. */
    Map<Integer, Set<Long>> instances() {
        return instances;
    }
}
