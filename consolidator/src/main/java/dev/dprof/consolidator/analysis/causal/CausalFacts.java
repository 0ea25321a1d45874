package dev.dprof.consolidator.analysis.causal;

import dev.dprof.consolidator.analysis.messages.CollectiveMatcher;
import dev.dprof.consolidator.analysis.messages.HandoffEdges;
import dev.dprof.consolidator.analysis.messages.UnexplainedWaits;
import dev.dprof.consolidator.analysis.messages.MessageMatcher;
import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.profile.ProfileException;
import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.format.FormatException;
import dev.dprof.format.profile.ProfileEvent;
import dev.dprof.format.profile.ProfileEventsReader;
import java.io.IOException;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.WeakHashMap;

/**
 * The first pass of the causal analyses: the measured minimum latency of every cross-thread edge
 * kind, the dynamic instance ids each region was entered with (per call, or fixed by a process at
 * its start), and the sends that blocked until their reader started reading.
 *
 * <p>A blocking send (flow control: a TCP write that fills the socket's buffers returns only when
 * the reader reads): the reader began taking the message — entered the receive region whose
 * receive matched it, or, without such a region, received it — after the send and before the
 * sender's next event, in the causal order. That next event then waited for the reader: the
 * replay makes it a join with the reader's event. A send that returns at once is followed by its
 * next event before the reader is reached and stays ordinary; a reader already waiting when the
 * data came does not make its sender wait.
 *
 * <p>A latency floor is a proven lower bound on every true latency of its kind: for messages from
 * process p to q, the smallest {@code max(0, lo_receive − hi_send)} over their matched messages;
 * for a barrier region, the smallest {@code max(0, lo_exit − max hi_enter)} over its instances, the
 * enters being those that precede the exit by the collective's flavour.
 * The what-if never lets a receive come sooner than its send plus the floor, nor a barrier exit
 * sooner than the last enter plus the floor ("elastic, never shorter than the measured minimum
 * latency"). The floors are parameters of the model: the bounds and the truth are computed with
 * the same ones. A handoff between threads of one process ({@link HandoffEdges}, matched by the
 * consolidator's rule) has the floor of its site: the smallest {@code max(0, lo_take − hi_put)}
 * over the site's matched pairs.
 */
final class CausalFacts {
    /**
     * The facts of an opened profile, measured once: a report asks the what-if ranking, its curves
     * and the critical path of the same profile, each of which needs them. A profile folder is
     * immutable once written, and the entry goes with the {@link Profile} object.
     */
    private static final Map<Profile, CausalFacts> MEASURED = Collections.synchronizedMap(new WeakHashMap<>());

    private final int processes;
    private final long[] message;
    private final Map<Integer, Long> barrier;
    private final Map<Integer, Set<Long>> instances;
    private final Map<Long, Long> waitsFor;
    private final HandoffEdges handoffs;

    private CausalFacts(int processes, long[] message, Map<Integer, Long> barrier, Map<Integer, Set<Long>> instances,
                        Map<Long, Long> waitsFor, HandoffEdges handoffs) {
        this.handoffs = handoffs;
        this.processes = processes;
        this.message = message;
        this.barrier = barrier;
        this.instances = instances;
        this.waitsFor = waitsFor;
    }

    /** A send: its process, upper bound, thread, index on the thread, position in the profile, and its thread's next. */
    private static final class Sent {
        final int process;
        final long hi;
        final int stream;
        final long index;
        final long position;
        long nextPosition = Long.MAX_VALUE;

        Sent(int process, long hi, int stream, long index, long position) {
            this.process = process;
            this.hi = hi;
            this.stream = stream;
            this.index = index;
            this.position = position;
        }
    }

    /** An event of a thread: {@code stream} in the high bits, its index on the thread in the low 40. */
    static long key(int stream, long index) {
        return (long) stream << 40 | index;
    }

    /** The facts of {@code profile}, measured on first use. */
    static CausalFacts of(Profile profile) throws ProfileException {
        CausalFacts known = MEASURED.get(profile);
        if (known == null) {
            known = measure(profile);
            MEASURED.put(profile, known);
        }
        return known;
    }

    private static CausalFacts measure(Profile profile) throws ProfileException {
        ProfileInfo info = profile.info();
        int processes = info.processes().size();
        int[] processOf = new int[info.streams().size()];
        for (ProfileInfo.Stream s : info.streams()) {
            processOf[s.index()] = s.process();
        }
        long[] message = new long[processes * processes];
        Arrays.fill(message, Long.MAX_VALUE);
        Map<Integer, Long> barrier = new HashMap<>();
        CollectiveMatcher<Long> collectives = new CollectiveMatcher<>();
        Map<Integer, Set<Long>> instances = new TreeMap<>();
        MessageMatcher<Sent> matcher = new MessageMatcher<>(info);
        int streams = processOf.length;
        long[] index = new long[streams];
        Sent[] lastSend = new Sent[streams];
        long[] readerIndex = new long[streams];
        long[] readerPosition = new long[streams];
        Arrays.fill(readerPosition, -1);
        boolean[] receiveRegion = new boolean[info.regions().size()];
        info.regions().forEach(r -> receiveRegion[r.index()] = "receive".equals(r.kind()));
        Map<Long, Long> waitsFor = new HashMap<>();
        HandoffEdges.Builder handoffs = new HandoffEdges.Builder(info);
        long position = 0;
        try (ProfileEventsReader events = profile.events()) {
            ProfileEvent e = new ProfileEvent();
            for (; events.next(e); position++) {
                if (e.stream < 0 || e.stream >= processOf.length) {
                    throw new ProfileException("an event of stream " + e.stream + ", which profile.json does not list");
                }
                int process = processOf[e.stream];
                handoffs.accept(e, position);
                if (UnexplainedWaits.isWait(e)) {
                    continue; // not in program order (UnexplainedWaits), nor in the replay's count of a thread's events
                }
                if (lastSend[e.stream] != null) {
                    lastSend[e.stream].nextPosition = position;
                    lastSend[e.stream] = null;
                }
                switch (e.kind) {
                    case SEND -> {
                        Sent sent = new Sent(process, e.hi, e.stream, index[e.stream], position);
                        matcher.send(e, sent);
                        lastSend[e.stream] = sent;
                    }
                    case RECEIVE -> {
                        Sent s = matcher.receive(e);
                        if (s != null) {
                            int pair = s.process * processes + process;
                            message[pair] = Math.min(message[pair], Math.max(0, e.lo - s.hi));
                            boolean entered = readerPosition[e.stream] > s.position;
                            long reader = entered ? readerPosition[e.stream] : position;
                            if (s.stream != e.stream && reader < s.nextPosition) {
                                waitsFor.put(key(s.stream, s.index + 1),
                                        key(e.stream, entered ? readerIndex[e.stream] : index[e.stream]));
                            }
                        }
                    }
                    case BARRIER_ENTER -> collectives.enter(e, e.hi);
                    case BARRIER_EXIT -> {
                        // The floor of a collective's logical messages (Becker §4.1): an exit's
                        // distance from the last enter that happens before it by the flavour.
                        List<Long> enters = collectives.exit(e);
                        if (!enters.isEmpty()) {
                            long enter = enters.stream().mapToLong(Long::longValue).max().getAsLong();
                            barrier.merge(e.region, Math.max(0, e.lo - enter), Math::min);
                        }
                    }
                    case ENTER_INSTANCE -> instances.computeIfAbsent(e.region, r -> new TreeSet<>()).add(e.a);
                    default -> {
                    }
                }
                if (e.kind.opens() && e.region >= 0
                        && e.region < receiveRegion.length && receiveRegion[e.region]) {
                    readerIndex[e.stream] = index[e.stream];
                    readerPosition[e.stream] = position;
                }
                index[e.stream]++;
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
        HandoffEdges edges = handoffs.build();
        HandoffEdges.remember(profile, edges);
        return new CausalFacts(processes, message, barrier, instances, waitsFor, edges);
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

    /** The handoff edges by position in the profile's order, with their sites' latency floors. */
    HandoffEdges handoffs() {
        return handoffs;
    }

    /** The floor of the handoffs of {@code site} (a region of kind handoff, or -1), in reference ticks. */
    long handoff(int site) {
        return handoffs.floor(site);
    }

    /**
     * The event ({@link #key}) a blocking send's next event waited for, by that next event; the
     * map is empty when no send blocked.
     */
    Map<Long, Long> waitsFor() {
        return waitsFor;
    }

    /** The dynamic instance ids of each region that has them, in order. */
    Map<Integer, Set<Long>> instances() {
        return instances;
    }
}
