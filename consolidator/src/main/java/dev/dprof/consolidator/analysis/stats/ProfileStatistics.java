package dev.dprof.consolidator.analysis.stats;

import dev.dprof.consolidator.analysis.messages.BarrierKey;
import dev.dprof.consolidator.analysis.messages.MessageMatcher;
import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.profile.ProfileException;
import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.format.CollectiveFlavour;
import dev.dprof.format.CollectiveShape;
import dev.dprof.format.EventKind;
import dev.dprof.format.FormatException;
import dev.dprof.format.profile.ProfileEvent;
import dev.dprof.format.profile.ProfileEventsReader;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.commons.numbers.fraction.BigFraction;

/**
 * Statistics over a consolidated profile (Li &amp; Zhang's dynamic records, §6.3 of "Scalable
 * monitoring … virtual clock"), every figure a sound interval in reference ticks, read in one
 * pass over the events with memory bounded by threads × nesting depth, regions × callers and the
 * messages and barrier instances in flight — never by the length of the trace.
 *
 * <h2>Regions</h2>
 * An instance is an {@code ENTER}/{@code ENTER_INSTANCE}/{@code BARRIER_ENTER} paired with the
 * next {@code EXIT}/{@code EXIT_THROW}/{@code BARRIER_EXIT} of the same region on the same thread
 * (a stack per thread). Its duration is {@code [max(0, Δk − 1)·slopeLow, (Δk + 1)·slopeHigh]}, where
 * {@code Δk} is the difference of the two raw ticks on the thread's own clock and the slopes are
 * the exact bounds on that clock's rate relative to the reference ({@code docs/BOUNDS.md},
 * "Durations"): the zero widths cancel, only the frequency uncertainty remains — never
 * {@code hi₂ − lo₁}. The ±1 is the readings' quantisation: a reading {@code k} stands for a
 * continuous clock value in {@code [k, k+1)}.
 * Totals are {@code [(ΣΔk − #{Δk ≥ 1})·slopeLow, (ΣΔk + count)·slopeHigh]} per process, summed over processes as exact rationals and
 * rounded outward once; the mean is the total over the count; the minimum lies in
 * {@code [min lo_i, min hi_i]}, the maximum in {@code [max lo_i, max hi_i]}.
 * <ul>
 * <li><b>Recursion</b> (the paper's rule for recursive procedures): an entry into a region
 * already open on the same thread neither counts nor adds time; the outermost call's instance
 * holds the time of all of them. Mutual recursion X → Y → X counts the outer X and the Y.</li>
 * <li><b>Callers</b>: the same figures per (caller → region), the caller being the innermost
 * region open on the thread at the entry, or {@value #TOP}.</li>
 * <li><b>Open instances</b>: an instance whose exit never came (a killed process, a lost event) is
 * reported as {@code open} and contributes nothing — its duration is not invented. An exit whose
 * region is open deeper in the stack closes the frames above it (counted as unpaired enters); an
 * exit of a region not open at all is counted as an unpaired exit and ignored.</li>
 * <li><b>Window</b>: with a window chosen at consolidation, an instance counts when it lies
 * certainly inside it (enter {@code lo ≥ from}, exit {@code hi ≤ to}); the others are counted as
 * outside. Messages and barrier instances likewise.</li>
 * </ul>
 *
 * <h2>Probe cost (the paper's virtual clock, §5.3)</h2>
 * The paper keeps a per-process intrusion time and subtracts it from the local clock. Here every
 * instance's duration is reduced by {@code (n + 1) × c} ticks of its own clock, clamped at 0,
 * before conversion: {@code max(0, Δk − (n + 1)·c) × [slopeLow, slopeHigh]}, where {@code c} is
 * the process's header probe cost (ticks per probe event, measured at start as the tick-to-tick
 * distance of back-to-back enter/exit probes) and {@code n} the number of events recorded on the
 * thread strictly between the instance's enter and exit. Why {@code n + 1}: each nested event
 * is a whole probe inside the span; the instance's own enter and exit each contribute only part
 * of a probe — the enter the work after its clock read, the exit the work before its clock read —
 * and since both run the same probe code those two parts add up to one probe whatever the split,
 * exactly as in the measurement of {@code c}. So an empty instance corrects to about 0, and an
 * instance of a send region (enter, send, exit) loses two probes. The correction is an estimate
 * (the cost was measured once, at start; lost or dropped events are not counted, so it errs on
 * the small side): the corrected figures bound the instrumented time less that estimate, not a
 * proven uninstrumented time, so the measured (uncorrected) figures are kept beside them and the
 * truth of a simulated run is compared with those. The correction's own size is reported per
 * region, in reference ticks as {@code [C·slopeLow, C·slopeHigh]} with {@code C} the ticks
 * actually taken off.
 *
 * <h2>Peers</h2>
 * <ul>
 * <li><b>Messages</b>: a {@code SEND} and the next {@code RECEIVE} with equal (channel, key),
 * the profile's order putting a matched send first. The sender and receiver are on different
 * clocks, so the transmission time is bounded by the difference of the two intervals:
 * {@code [max(0, lo_r − hi_s), hi_r − lo_s]}, per (sender process → receiver process). A key sent
 * again while still in flight is ambiguous and neither of its sends is matched (as in
 * consolidation); a key reused after its receive is matched again in order. Transmission time is
 * not probe-corrected (the two stamps are in different processes, and a send is stamped before
 * its bytes leave, a receive after they arrived).</li>
 * <li><b>Synchronisation delay at barriers</b>: for a barrier instance (region, key), let
 * {@code M_p} be the moment the last of process p's threads entered it. The delay of p waiting for
 * q is {@code max(0, M_q − M_p)}: how long p's last thread waited, from its own enter, for q's last
 * thread to arrive; p's whole wait in the instance, until the instance's last enter, is the
 * largest of these ({@link BarrierWait}). With {@code M_p ∈ [max lo, max hi]} over p's enters,
 * the delay lies in {@code [max(0, lo(M_q) − hi(M_p)), max(0, hi(M_q) − lo(M_p))]}. An instance
 * is complete at its first exit (the causal order puts all its enters before it) or, at the end,
 * when its enters reach the participant count; otherwise it is reported unfinished.</li>
 * </ul>
 *
 * <p>Every result names the calibration quality it rests on (the worst among the processes that
 * contributed) and the drift assumption of the profile.
 */
public final class ProfileStatistics {
    /** The caller of an instance entered with no region open on its thread. */
    public static final String TOP = "(top)";
    /** The unit of every figure in nanoseconds. */
    public static final String UNIT = "ns at the reference's nominal rate";

    /** One region's figures, or one (caller → region) pair's when {@code caller} is set. */
    public record RegionFigures(String caller, String name, String kind, long count, long open, long outsideWindow,
                                Durations measured, Durations corrected, Bound correction, TruthDurations truth,
                                String quality) {
    }

    /**
     * One ordered pair of processes: messages {@code from → to}, and barrier delay of {@code from}
     * waiting for {@code to}. {@code transmissionTruth} and {@code syncDelayTruth} are null without
     * truth.
     */
    public record PeerFigures(int from, String fromLabel, int to, String toLabel, Durations transmission,
                              TruthDurations transmissionTruth, long barrierInstances, Bound syncDelay,
                              Long syncDelayTruth, String quality) {
    }

    /** One process's wait at barriers: from its last thread's enter until the instance's last enter. */
    public record BarrierWait(int process, String label, long instances, Bound delay, Long truth, String quality) {
    }

    /** Figures over the whole profile. */
    public record Totals(long events, long instances, long open, long outsideWindow, long unpairedEnters,
                         long unpairedExits, long backwardTicks, Bound probeCorrection, Bound probeCost,
                         long matchedMessages, long unmatchedSends, long unmatchedReceives, long ambiguousMessages,
                         long barrierInstances, long unfinishedBarrierInstances) {
    }

    /** Everything, and what it rests on. {@link #nanos} turns reference ticks into the display unit. */
    public record Result(List<RegionFigures> regions, List<RegionFigures> instances, List<RegionFigures> callers,
                         List<PeerFigures> peers,
                         List<BarrierWait> barrierWaits, Totals totals, double referenceTickHz, boolean truth,
                         String quality, String assumption, List<String> notes) {
        /** Reference ticks in {@value ProfileStatistics#UNIT}: for display only. */
        public double nanos(double ticks) {
            return ticks * 1e9 / referenceTickHz;
        }
    }

    private ProfileStatistics() {
    }

    public static Result compute(Profile profile) throws ProfileException {
        Pass pass = new Pass(profile.info());
        try (ProfileEventsReader events = profile.events()) {
            ProfileEvent e = new ProfileEvent();
            while (events.next(e)) {
                pass.accept(e);
            }
        } catch (IOException | FormatException e) {
            throw new ProfileException(profile.dir() + ": " + e.getMessage());
        }
        return pass.finish();
    }

    /** A frame of a thread's stack. */
    private static final class ThreadState {
        final int process;
        long seq;
        int depth;
        int[] region = new int[16];
        int[] caller = new int[16];
        boolean[] counted = new boolean[16];
        long[] tick = new long[16];
        long[] seqAt = new long[16];
        long[] lo = new long[16];
        long[] truth = new long[16];
        long[] instance = new long[16];
        int[] openCount = new int[0];

        ThreadState(int process) {
            this.process = process;
        }

        int open(int r) {
            return r < openCount.length ? openCount[r] : 0;
        }

        void push(int r, int c, boolean isCounted, long t, long s, long l, long tr, long inst) {
            if (depth == region.length) {
                int n = depth * 2;
                region = Arrays.copyOf(region, n);
                caller = Arrays.copyOf(caller, n);
                counted = Arrays.copyOf(counted, n);
                tick = Arrays.copyOf(tick, n);
                seqAt = Arrays.copyOf(seqAt, n);
                lo = Arrays.copyOf(lo, n);
                truth = Arrays.copyOf(truth, n);
                instance = Arrays.copyOf(instance, n);
            }
            if (r >= openCount.length) {
                openCount = Arrays.copyOf(openCount, Math.max(r + 1, openCount.length * 2));
            }
            openCount[r]++;
            region[depth] = r;
            caller[depth] = c;
            counted[depth] = isCounted;
            tick[depth] = t;
            seqAt[depth] = s;
            lo[depth] = l;
            instance[depth] = inst;
            truth[depth++] = tr;
        }

        void pop() {
            openCount[region[--depth]]--;
        }
    }

    private record Sent(int process, long lo, long hi, long truth, boolean inside) {
    }

    private static final long NO_INSTANCE = Long.MIN_VALUE;

    private record InstanceKey(int region, long instance) implements Comparable<InstanceKey> {
        @Override
        public int compareTo(InstanceKey o) {
            return region != o.region ? Integer.compare(region, o.region) : Long.compare(instance, o.instance);
        }
    }

    /** A barrier instance whose enters are being collected. */
    private static final class BarrierInstance {
        final long[] maxLo;
        final long[] maxHi;
        final long[] maxTruth;
        long enters;
        long participants;
        boolean inside = true;

        BarrierInstance(int processes) {
            maxLo = new long[processes];
            maxHi = new long[processes];
            maxTruth = new long[processes];
            Arrays.fill(maxLo, Long.MIN_VALUE);
            Arrays.fill(maxHi, Long.MIN_VALUE);
            Arrays.fill(maxTruth, Long.MIN_VALUE);
        }
    }

    /** Message and barrier figures of one ordered process pair. */
    private static final class PeerSums {
        long messages;
        final WideSum lo = new WideSum();
        final WideSum hi = new WideSum();
        long minLo = Long.MAX_VALUE;
        long minHi = Long.MAX_VALUE;
        long maxLo = Long.MIN_VALUE;
        long maxHi = Long.MIN_VALUE;
        long truthCount;
        final WideSum truth = new WideSum();
        long truthMin = Long.MAX_VALUE;
        long truthMax = Long.MIN_VALUE;
        long barriers;
        final WideSum syncLo = new WideSum();
        final WideSum syncHi = new WideSum();
        final WideSum syncTruth = new WideSum();
        boolean syncHasTruth;
    }

    /** One process's barrier waits. */
    private static final class WaitSums {
        long instances;
        final WideSum lo = new WideSum();
        final WideSum hi = new WideSum();
        final WideSum truth = new WideSum();
        boolean hasTruth;
    }

    /** The single pass. */
    private static final class Pass {
        private final ProfileInfo info;
        private final Rates rates;
        private final int processes;
        private final long from;
        private final long to;
        private final ThreadState[] threads;
        private DurationSums[] regions;
        /** Per region, per caller + 1 (0: the top). */
        private DurationSums[][] callers = new DurationSums[0][];
        private final long[] eventsOf;
        private final MessageMatcher<Sent> messages;
        /** Per process and region, the instance id fixed at start, or {@link #NO_INSTANCE}. */
        private final long[][] fixedInstance;
        /** Regions that carry a dynamic instance id, per (region, instance): a rank-specific region's figures. */
        private final Map<InstanceKey, DurationSums> byInstance = new java.util.TreeMap<>();
        private final Map<BarrierKey, BarrierInstance> barriers = new HashMap<>();
        private final PeerSums[] peers;
        private final WaitSums[] waits;
        private final boolean[] contributed;
        private long events;
        private long instances;
        private long outsideWindow;
        private long unpairedEnters;
        private long unpairedExits;
        private long backwardTicks;
        private long matched;
        private long unmatchedReceives;
        private long messagesOutsideWindow;
        private long barrierInstances;
        private long barriersOutsideWindow;
        private long unfinishedBarriers;

        Pass(ProfileInfo info) throws ProfileException {
            this.info = info;
            this.rates = new Rates(info);
            this.processes = info.processes().size();
            ProfileInfo.Window w = info.window();
            this.from = w == null ? Long.MIN_VALUE : w.fromTick();
            this.to = w == null ? Long.MAX_VALUE : w.toTick();
            this.threads = new ThreadState[info.streams().size()];
            for (ProfileInfo.Stream s : info.streams()) {
                if (s.index() < 0 || s.index() >= threads.length || s.process() < 0 || s.process() >= processes) {
                    throw new ProfileException("stream " + s.index() + " (process " + s.process() + ") out of range");
                }
                threads[s.index()] = new ThreadState(s.process());
            }
            this.regions = new DurationSums[info.regions().size()];
            this.eventsOf = new long[processes];
            this.peers = new PeerSums[processes * processes];
            this.waits = new WaitSums[processes];
            this.contributed = new boolean[processes];
            this.messages = new MessageMatcher<>(info);
            this.fixedInstance = info.fixedInstances(NO_INSTANCE);
        }

        void accept(ProfileEvent e) throws ProfileException {
            if (e.stream < 0 || e.stream >= threads.length || threads[e.stream] == null) {
                throw new ProfileException("an event of stream " + e.stream + ", which profile.json does not list");
            }
            ThreadState t = threads[e.stream];
            events++;
            eventsOf[t.process]++;
            long seq = t.seq++;
            switch (e.kind) {
                case ENTER, ENTER_INSTANCE, BARRIER_ENTER -> {
                    if (e.region >= 0) {
                        int caller = t.depth == 0 ? -1 : t.region[t.depth - 1];
                        long instance = e.kind == EventKind.ENTER_INSTANCE ? e.a : fixedInstance[t.process][e.region];
                        t.push(e.region, caller, t.open(e.region) == 0, e.tick, seq, e.lo, e.truth, instance);
                    }
                    if (e.kind == EventKind.BARRIER_ENTER) {
                        barrierEnter(e, t.process);
                    }
                }
                case EXIT, EXIT_THROW, BARRIER_EXIT -> {
                    if (e.region >= 0) {
                        exit(t, e, seq);
                    }
                    if (e.kind == EventKind.BARRIER_EXIT) {
                        BarrierInstance b = barriers.remove(BarrierKey.of(e));
                        if (b != null) {
                            finishBarrier(b);
                        }
                    }
                }
                case SEND -> send(e, t.process);
                case RECEIVE -> receive(e, t.process);
                default -> {
                    // point events: they only count as probes inside the instances around them
                }
            }
        }

        private void exit(ThreadState t, ProfileEvent e, long seq) {
            int r = e.region;
            if (t.open(r) == 0) {
                unpairedExits++;
                return;
            }
            while (t.region[t.depth - 1] != r) {
                unpairedEnters++;
                t.pop();
            }
            int at = t.depth - 1;
            t.pop();
            if (!t.counted[at]) {
                return;
            }
            if (t.lo[at] < from || e.hi > to) {
                outsideWindow++;
                sums(r).outsideWindow++;
                callerSums(t.caller[at], r).outsideWindow++;
                return;
            }
            long ticks = e.tick - t.tick[at];
            if (ticks < 0) {
                backwardTicks++;
                ticks = 0;
            }
            long nested = seq - t.seqAt[at] - 1;
            long truth = e.truth == ProfileEvent.NO_TRUTH || t.truth[at] == ProfileEvent.NO_TRUTH
                    ? ProfileEvent.NO_TRUTH : e.truth - t.truth[at];
            long cost = rates.costX1024[t.process];
            sums(r).add(t.process, ticks, nested, cost, truth);
            callerSums(t.caller[at], r).add(t.process, ticks, nested, cost, truth);
            if (t.instance[at] != NO_INSTANCE) {
                byInstance.computeIfAbsent(new InstanceKey(r, t.instance[at]), k -> new DurationSums(processes))
                        .add(t.process, ticks, nested, cost, truth);
            }
            contributed[t.process] = true;
            instances++;
        }

        private DurationSums sums(int region) {
            if (region >= regions.length) {
                regions = Arrays.copyOf(regions, Math.max(region + 1, regions.length * 2));
            }
            DurationSums s = regions[region];
            if (s == null) {
                s = new DurationSums(processes);
                regions[region] = s;
            }
            return s;
        }

        private DurationSums callerSums(int caller, int region) {
            if (region >= callers.length) {
                callers = Arrays.copyOf(callers, Math.max(region + 1, callers.length * 2));
            }
            DurationSums[] of = callers[region];
            int at = caller + 1;
            if (of == null || at >= of.length) {
                of = of == null ? new DurationSums[Math.max(at + 1, 4)] : Arrays.copyOf(of, Math.max(at + 1, of.length * 2));
                callers[region] = of;
            }
            DurationSums s = of[at];
            if (s == null) {
                s = new DurationSums(processes);
                of[at] = s;
            }
            return s;
        }

        private void send(ProfileEvent e, int process) {
            messages.send(e, new Sent(process, e.lo, e.hi, e.truth, e.lo >= from));
        }

        private void receive(ProfileEvent e, int process) {
            Sent s = messages.receive(e);
            if (s == null) {
                unmatchedReceives++; // used only for a profile that predates consolidation's count
                return;
            }
            matched++;
            if (!s.inside || e.hi > to) {
                messagesOutsideWindow++;
                return;
            }
            PeerSums p = peer(s.process, process);
            long lo = Math.max(0, e.lo - s.hi);
            long hi = Math.max(lo, e.hi - s.lo);
            p.messages++;
            p.lo.add(lo);
            p.hi.add(hi);
            p.minLo = Math.min(p.minLo, lo);
            p.minHi = Math.min(p.minHi, hi);
            p.maxLo = Math.max(p.maxLo, lo);
            p.maxHi = Math.max(p.maxHi, hi);
            if (e.truth != ProfileEvent.NO_TRUTH && s.truth != ProfileEvent.NO_TRUTH) {
                long t = e.truth - s.truth;
                p.truthCount++;
                p.truth.add(t);
                p.truthMin = Math.min(p.truthMin, t);
                p.truthMax = Math.max(p.truthMax, t);
            }
            contributed[s.process] = true;
            contributed[process] = true;
        }

        private PeerSums peer(int a, int b) {
            int i = a * processes + b;
            if (peers[i] == null) {
                peers[i] = new PeerSums();
            }
            return peers[i];
        }

        private void barrierEnter(ProfileEvent e, int process) {
            // Synchronization delay (waiting for the last arrival) is what an N-to-N collective
            // imposes on everyone; the other flavours (Becker §4.1) hold back only the root or the
            // higher ranks, so their waits are not this figure.
            if (CollectiveShape.flavourOf(e.b) != CollectiveFlavour.N_TO_N) {
                return;
            }
            BarrierInstance b = barriers.computeIfAbsent(BarrierKey.of(e), k -> new BarrierInstance(processes));
            b.enters++;
            b.participants = Math.max(b.participants, CollectiveShape.participantsOf(e.b));
            b.maxLo[process] = Math.max(b.maxLo[process], e.lo);
            b.maxHi[process] = Math.max(b.maxHi[process], e.hi);
            if (e.truth != ProfileEvent.NO_TRUTH) {
                b.maxTruth[process] = Math.max(b.maxTruth[process], e.truth);
            }
            b.inside &= e.lo >= from && e.hi <= to;
        }

        private void finishBarrier(BarrierInstance b) {
            if (!b.inside) {
                barriersOutsideWindow++;
                return;
            }
            barrierInstances++;
            long allLo = Long.MIN_VALUE;
            long allHi = Long.MIN_VALUE;
            long allTruth = Long.MIN_VALUE;
            boolean truth = true;
            for (int p = 0; p < processes; p++) {
                if (b.maxLo[p] != Long.MIN_VALUE) {
                    allLo = Math.max(allLo, b.maxLo[p]);
                    allHi = Math.max(allHi, b.maxHi[p]);
                    allTruth = Math.max(allTruth, b.maxTruth[p]);
                    truth &= b.maxTruth[p] != Long.MIN_VALUE;
                }
            }
            for (int p = 0; p < processes; p++) {
                if (b.maxLo[p] == Long.MIN_VALUE) {
                    continue;
                }
                contributed[p] = true;
                WaitSums w = waits[p] == null ? (waits[p] = new WaitSums()) : waits[p];
                w.instances++;
                w.lo.add(Math.max(0, allLo - b.maxHi[p]));
                w.hi.add(Math.max(0, allHi - b.maxLo[p]));
                if (truth) {
                    w.hasTruth = true;
                    w.truth.add(allTruth - b.maxTruth[p]);
                }
                for (int q = 0; q < processes; q++) {
                    if (q == p || b.maxLo[q] == Long.MIN_VALUE) {
                        continue;
                    }
                    PeerSums s = peer(p, q);
                    s.barriers++;
                    s.syncLo.add(Math.max(0, b.maxLo[q] - b.maxHi[p]));
                    s.syncHi.add(Math.max(0, b.maxHi[q] - b.maxLo[p]));
                    if (truth) {
                        s.syncHasTruth = true;
                        s.syncTruth.add(Math.max(0, b.maxTruth[q] - b.maxTruth[p]));
                    }
                }
            }
        }

        Result finish() {
            long open = 0;
            for (ThreadState t : threads) {
                if (t == null) {
                    continue;
                }
                for (int d = 0; d < t.depth; d++) {
                    if (t.counted[d]) {
                        open++;
                        sums(t.region[d]).open++;
                        callerSums(t.caller[d], t.region[d]).open++;
                        contributed[t.process] = true;
                    }
                }
            }
            for (BarrierInstance b : barriers.values()) {
                if (b.participants > 0 && b.enters >= b.participants) {
                    finishBarrier(b);
                } else {
                    unfinishedBarriers++;
                }
            }
            barriers.clear();

            List<RegionFigures> regionFigures = new ArrayList<>();
            BigFraction correctionLo = BigFraction.ZERO;
            BigFraction correctionHi = BigFraction.ZERO;
            for (int r = 0; r < regions.length; r++) {
                DurationSums s = regions[r];
                if (s == null) {
                    continue;
                }
                regionFigures.add(figures(null, r, s));
                BigFraction[] c = s.correctionExact(rates);
                correctionLo = correctionLo.add(c[0]);
                correctionHi = Rates.plus(correctionHi, c[1]);
            }
            Comparator<RegionFigures> byTotal = Comparator
                    .comparingDouble((RegionFigures f) -> -f.corrected().total().hi())
                    .thenComparingDouble(f -> -f.corrected().total().lo())
                    .thenComparing(RegionFigures::name);
            regionFigures.sort(byTotal);
            List<String> order = regionFigures.stream().map(RegionFigures::name).toList();
            List<RegionFigures> instanceFigures = new ArrayList<>();
            for (Map.Entry<InstanceKey, DurationSums> i : byInstance.entrySet()) {
                RegionFigures f = figures(null, i.getKey().region(), i.getValue());
                instanceFigures.add(new RegionFigures(null, f.name() + "[" + i.getKey().instance() + "]", f.kind(),
                        f.count(), f.open(), f.outsideWindow(), f.measured(), f.corrected(), f.correction(), f.truth(),
                        f.quality()));
            }
            List<RegionFigures> callerFigures = new ArrayList<>();
            for (int region = 0; region < callers.length; region++) {
                DurationSums[] of = callers[region];
                for (int at = 0; of != null && at < of.length; at++) {
                    if (of[at] != null) {
                        callerFigures.add(figures(at == 0 ? TOP : regionName(at - 1), region, of[at]));
                    }
                }
            }
            callerFigures.sort(Comparator.comparingInt((RegionFigures f) -> order.indexOf(f.name())).thenComparing(byTotal)
                    .thenComparing(RegionFigures::caller));

            List<PeerFigures> peerFigures = new ArrayList<>();
            for (int p = 0; p < processes; p++) {
                for (int q = 0; q < processes; q++) {
                    PeerSums s = peers[p * processes + q];
                    if (s != null) {
                        peerFigures.add(peerFigures(p, q, s));
                    }
                }
            }
            List<BarrierWait> waitFigures = new ArrayList<>();
            for (int p = 0; p < processes; p++) {
                WaitSums w = waits[p];
                if (w != null) {
                    waitFigures.add(new BarrierWait(p, rates.label[p], w.instances,
                            Rates.bound(BigFraction.of(w.lo.value()), BigFraction.of(w.hi.value())),
                            w.hasTruth ? w.truth.value().longValue() : null, rates.quality[p]));
                }
            }

            BigFraction costLo = BigFraction.ZERO;
            BigFraction costHi = BigFraction.ZERO;
            for (int p = 0; p < processes; p++) {
                BigFraction ticks = BigFraction.of(eventsOf[p]).multiply(rates.costX1024[p]).divide(Rates.COST_SCALE);
                costLo = costLo.add(ticks.multiply(rates.low[p]));
                costHi = eventsOf[p] == 0 || rates.costX1024[p] == 0 ? costHi
                        : rates.high[p] == null ? null : Rates.plus(costHi, ticks.multiply(rates.high[p]));
            }
            // The run's unmatched counts are consolidation's, by kind and reason: one figure everywhere. Only
            // a profile written before them (or built by hand) is counted here.
            boolean counted = info.messages().unmatched() != null;
            long unmatchedSends = counted ? info.messages().unmatchedSends() : messages.unmatchedSends();
            long unmatchedReceives = counted ? info.messages().unmatchedReceives() : this.unmatchedReceives;
            Totals totals = new Totals(events, instances, open, outsideWindow, unpairedEnters, unpairedExits,
                    backwardTicks, Rates.bound(correctionLo, correctionHi), Rates.bound(costLo, costHi), matched,
                    unmatchedSends, unmatchedReceives, messages.ambiguousSends(), barrierInstances, unfinishedBarriers);
            String quality = null;
            for (int p = 0; p < processes; p++) {
                if (contributed[p]) {
                    quality = Rates.worse(quality, rates.quality[p]);
                }
            }
            if (quality == null) {
                for (int p = 0; p < processes; p++) {
                    quality = Rates.worse(quality, rates.quality[p]);
                }
            }
            return new Result(regionFigures, instanceFigures, callerFigures, peerFigures, waitFigures, totals,
                    info.referenceTickHz(),
                    info.truth(), quality == null ? "REFERENCE" : quality, info.assumption(),
                    notes(totals));
        }

        private RegionFigures figures(String caller, int region, DurationSums s) {
            String quality = s.quality(rates);
            return new RegionFigures(caller, regionName(region), regionKind(region), s.count(), s.open,
                    s.outsideWindow, s.measured(rates), s.corrected(rates), s.correction(rates), s.truth(),
                    quality == null ? "REFERENCE" : quality);
        }

        private PeerFigures peerFigures(int p, int q, PeerSums s) {
            Durations transmission = Durations.NONE;
            if (s.messages > 0) {
                BigFraction lo = BigFraction.of(s.lo.value());
                BigFraction hi = BigFraction.of(s.hi.value());
                transmission = new Durations(s.messages, Rates.bound(lo, hi),
                        Rates.bound(lo.divide(s.messages), hi.divide(s.messages)),
                        new Bound(s.minLo, s.minHi), new Bound(s.maxLo, s.maxHi));
            }
            TruthDurations truth = s.truthCount == 0 ? null : new TruthDurations(s.truthCount,
                    s.truth.value().longValue(), s.truth.value().doubleValue() / s.truthCount, s.truthMin, s.truthMax);
            return new PeerFigures(p, rates.label[p], q, rates.label[q], transmission, truth, s.barriers,
                    new Bound(Rates.down(BigFraction.of(s.syncLo.value())), Rates.up(BigFraction.of(s.syncHi.value()))),
                    s.syncHasTruth ? s.syncTruth.value().longValue() : null,
                    Rates.worse(rates.quality[p], rates.quality[q]));
        }

        private String regionName(int r) {
            return r < info.regions().size() ? info.regions().get(r).name() : "#" + r;
        }

        private String regionKind(int r) {
            return r < info.regions().size() ? info.regions().get(r).kind() : "?";
        }

        private List<String> notes(Totals t) {
            List<String> notes = new ArrayList<>();
            if (t.open() > 0) {
                notes.add(t.open() + " region instances were still open at the end (a killed process, or an exit lost);"
                        + " they are reported as open and not counted");
            }
            if (t.unpairedEnters() > 0 || t.unpairedExits() > 0) {
                notes.add(t.unpairedEnters() + " enters without their exit and " + t.unpairedExits()
                        + " exits without their enter (lost or unbounded events) were left out");
            }
            if (t.backwardTicks() > 0) {
                notes.add(t.backwardTicks() + " instances whose exit tick is below their enter tick were counted as 0");
            }
            if (t.outsideWindow() > 0 || messagesOutsideWindow > 0 || barriersOutsideWindow > 0) {
                notes.add("outside the window or across its edges, left out: " + t.outsideWindow() + " instances, "
                        + messagesOutsideWindow + " messages, " + barriersOutsideWindow + " barrier instances");
            }
            if (info.messages().unmatched() != null) {
                info.messages().unmatchedLines().forEach(line -> notes.add("unmatched: " + line));
            } else if (t.unmatchedSends() > 0 || t.unmatchedReceives() > 0) {
                notes.add("messages not matched: " + t.unmatchedSends() + " sends, " + t.unmatchedReceives()
                        + " receives (this profile predates consolidation's count by kind and reason)");
            }
            if (t.ambiguousMessages() > 0) {
                notes.add(t.ambiguousMessages() + " sends with a key sent again while in flight (neither matched)");
            }
            ProfileInfo.Tcp tcp = info.messages().tcp();
            if (tcp.ambiguous() > 0 || tcp.withoutPeer() > 0 || tcp.droppedReceives() > 0) {
                notes.add("TCP: " + tcp.connections() + " connections paired; " + tcp.ambiguous() + " connection ends"
                        + " not told apart from others on the same addresses and ports and " + tcp.withoutPeer()
                        + " without a recorded peer constrain nothing; " + tcp.droppedReceives() + " reads dropped at"
                        + " an offset written twice");
            }
            if (t.unfinishedBarrierInstances() > 0) {
                notes.add(t.unfinishedBarrierInstances() + " barrier instances never completed; left out");
            }
            if (info.unboundedEvents() > 0) {
                notes.add(info.unboundedEvents() + " events had no sound bound at consolidation and are missing");
            }
            if (info.causalityConflicts() > 0) {
                notes.add(info.causalityConflicts() + " causality conflicts at consolidation");
            }
            for (int p = 0; p < processes; p++) {
                if (contributed[p] && rates.high[p] == null) {
                    notes.add("process " + rates.label[p] + ": its rate has no bound (" + rates.quality[p]
                            + "); its durations have no upper bound");
                }
                if (contributed[p] && rates.costX1024[p] == 0) {
                    notes.add("process " + rates.label[p] + ": no probe cost in its header; nothing subtracted");
                }
            }
            return notes;
        }
    }
}
