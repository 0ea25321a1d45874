package dev.dprof.consolidator.sync;

import dev.dprof.consolidator.analysis.messages.CollectiveMatcher;
import dev.dprof.consolidator.analysis.messages.MessageMatcher;
import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.profile.ProfileException;
import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.format.EventKind;
import dev.dprof.format.FormatException;
import dev.dprof.format.profile.ProfileEvent;
import dev.dprof.format.profile.ProfileEventsReader;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The controlled logical clock (Rabenseifner 1997; Becker et al. 2009, §3–§4), in three passes over
 * a consolidated profile's causal order.
 *
 * <ol>
 * <li><b>Pre-synchronization</b>: each process's clock by linear offset interpolation between the
 * offsets its domain measured against its parent at the start and the end of the run (the tightest
 * calibration exchange of the first and of the last quarter), as Rabenseifner's ping-pongs at the
 * start and the end of the run, composed along the calibration tree
 * ({@link DomainClocks#offsetInterpolation}), {@code C_i}; a process whose domain has fewer than two
 * exchanges (or a profile without them) interpolates between its first and its last event's FreeZer
 * midpoints instead, and the profile says so. The minimum latencies {@code μ} are measured: the smallest proven latency of
 * messages within one process (same clock: tick difference × the lower rate bound) and between
 * processes (FreeZer's {@code max(0, lo_receive − hi_send)}).</li>
 * <li><b>Forward amortization</b> (Becker Eq. 4 and 4′): {@code LC'(e) = max(LC'(send) + μ,
 * LC'(prev) + δ, LC'(prev) + γ·(C(e) − C(prev)), C(e))} for a logical receive, the same without the
 * first term otherwise; {@code γ = 0.99}, {@code δ = 1} tick. Logical messages are the matched
 * messages and, per collective instance, the enter → exit pairs of its flavour (Becker §4.1,
 * {@link CollectiveMatcher}): N-to-N every enter to every exit, 1-to-N the root's enter to every
 * exit, N-to-1 every enter to the root's exit, scan/exscan the enter of rank i to the exits of
 * ranks j ≥ i / j > i; an exit follows the last of its enters by μ (Eq. 4′). A receive moved
 * forward by its send is a jump.</li>
 * <li><b>Backward amortization</b> (Becker §3.2, §4.2): before each jump {@code Δ} at a receive, the
 * thread's events in the amortization interval {@code L_A = Δ / 0.02} move forward by a piecewise
 * linear correction rising from 0 to {@code Δ}: the lower convex hull of that ramp and of every
 * logical send's limit in the interval (its earliest logical receive minus μ, less its own time:
 * for a collective's enter the earliest exit it precedes, Becker §4.2), so that no send passes a
 * receive it precedes. Overlapping corrections take the larger.</li>
 * </ol>
 * The corrected times never break a message or a barrier (given the measured μ), and program order
 * holds. Memory: the messages and jumps of the run (as for consolidation), not its events.
 */
final class ControlledLogicalClock {
    static final double GAMMA = 0.99;
    static final double DELTA = 1;
    /** Δt / L_A: the correction's slope before a jump. */
    static final double AMORTIZATION = 0.02;

    private final ProfileInfo info;
    private final int[] processOf;
    private final LinearClock[] presync;
    private final double muIntra;
    private final double muInter;
    /** Per stream, the backward corrections, by the time of their jump. */
    private final List<List<Ramp>> ramps;
    private final IntervalDeviation.Builder deviation = new IntervalDeviation.Builder();
    private final List<ClockBasis> basis;

    private ControlledLogicalClock(ProfileInfo info, int[] processOf, LinearClock[] presync, double muIntra,
                                   double muInter, List<List<Ramp>> ramps, List<ClockBasis> basis) {
        this.basis = basis;
        this.info = info;
        this.processOf = processOf;
        this.presync = presync;
        this.muIntra = muIntra;
        this.muInter = muInter;
        this.ramps = ramps;
    }

    /** A backward correction: 0 at {@code from}, then the hull's knots up to {@code Δ} at the jump. */
    record Ramp(double from, double[] t, double[] v) {
        /** The time of the jump. */
        double end() {
            return t[t.length - 1];
        }

        /** The offset at time {@code x} (0 outside the ramp). */
        double at(double x) {
            if (x <= from || x >= end()) {
                return 0;
            }
            double pt = from;
            double pv = 0;
            for (int i = 0; i < t.length; i++) {
                if (x <= t[i]) {
                    return pv + (v[i] - pv) * (x - pt) / (t[i] - pt);
                }
                pt = t[i];
                pv = v[i];
            }
            return 0;
        }
    }

    /** The first two passes; {@code problems} is told which processes' offsets could not come from calibration. */
    static ControlledLogicalClock prepare(Profile source, List<String> problems) throws ProfileException {
        ProfileInfo info = source.info();
        int[] processOf = new int[info.streams().size()];
        info.streams().forEach(s -> processOf[s.index()] = s.process());
        LinearClock[] presync = new LinearClock[info.processes().size()];
        double[] mu = presync(source, processOf, presync);
        List<ClockBasis> basis = new ArrayList<>();
        LinearClock[] measured = DomainClocks.offsetInterpolation(source, basis);
        List<String> fromMidpoints = new ArrayList<>();
        for (ProfileInfo.Process p : info.processes()) {
            if (measured[p.index()] != null) {
                presync[p.index()] = measured[p.index()];
            } else {
                fromMidpoints.add(p.host() + "-" + p.pid());
            }
        }
        if (!fromMidpoints.isEmpty()) {
            problems.add("clc: no two calibration exchanges on the path of " + String.join(", ", fromMidpoints)
                    + " to the reference (or none in the profile): offsets interpolated between the first and the last"
                    + " event's FreeZer midpoints instead");
        }
        Forward forward = new Forward(info, processOf, presync, mu[0], mu[1], true);
        read(source, forward::accept);
        return new ControlledLogicalClock(info, processOf, presync, mu[0], mu[1], forward.ramps(), List.copyOf(basis));
    }

    /** What each domain's pre-synchronization rests on. */
    List<ClockBasis> basis() {
        return basis;
    }

    /** Each process's first and last midpoint make its pre-synchronization line; returns {μ within, μ between}. */
    private static double[] presync(Profile source, int[] processOf, LinearClock[] presync) throws ProfileException {
        ProfileInfo info = source.info();
        int n = presync.length;
        long[] firstTick = new long[n];
        long[] lastTick = new long[n];
        double[] firstMid = new double[n];
        double[] lastMid = new double[n];
        boolean[] seen = new boolean[n];
        double[] slopeLow = new double[n];
        for (ProfileInfo.Process p : info.processes()) {
            slopeLow[p.index()] = Double.isNaN(p.slopeLowApprox()) ? 0 : p.slopeLowApprox();
        }
        double[] mu = {Double.POSITIVE_INFINITY, Double.POSITIVE_INFINITY};
        record Sent(int process, long tick, long hi) {
        }
        MessageMatcher<Sent> matcher = new MessageMatcher<>(info);
        read(source, e -> {
            int p = processOf[e.stream];
            if (e.lo != Long.MIN_VALUE && e.hi != Long.MAX_VALUE) {
                double mid = e.lo + (e.hi - e.lo) / 2.0;
                if (!seen[p]) {
                    seen[p] = true;
                    firstTick[p] = e.tick;
                    firstMid[p] = mid;
                }
                lastTick[p] = e.tick;
                lastMid[p] = mid;
            }
            if (e.kind == EventKind.SEND) {
                matcher.send(e, new Sent(p, e.tick, e.hi));
            } else if (e.kind == EventKind.RECEIVE) {
                Sent s = matcher.receive(e);
                if (s != null && s.process == p) {
                    mu[0] = Math.min(mu[0], Math.max(0, e.tick - s.tick - 1) * slopeLow[p]);
                } else if (s != null) {
                    mu[1] = Math.min(mu[1], Math.max(0, e.lo - s.hi));
                }
            }
        });
        for (int p = 0; p < n; p++) {
            if (!seen[p]) {
                ProfileInfo.Process process = info.processes().get(p);
                throw new ProfileException("process " + process.host() + "-" + process.pid() + " has no bounded event: "
                        + "clc has no offset to interpolate from");
            }
            double slope = lastTick[p] > firstTick[p] ? (lastMid[p] - firstMid[p]) / (lastTick[p] - firstTick[p])
                    : info.processes().get(p).slopeLowApprox();
            presync[p] = new LinearClock(firstTick[p], firstMid[p], slope);
        }
        return new double[] {Double.isInfinite(mu[0]) ? 0 : mu[0], Double.isInfinite(mu[1]) ? 0 : mu[1]};
    }

    private interface EventSink {
        void accept(ProfileEvent e) throws ProfileException;
    }

    private static void read(Profile source, EventSink sink) throws ProfileException {
        try (ProfileEventsReader events = source.events()) {
            ProfileEvent e = new ProfileEvent();
            while (events.next(e)) {
                if (e.stream < 0 || e.stream >= source.info().streams().size()) {
                    throw new ProfileException("an event of stream " + e.stream + ", which profile.json does not list");
                }
                sink.accept(e);
            }
        } catch (IOException | FormatException e) {
            throw new ProfileException(source.dir() + ": " + e.getMessage());
        }
    }

    /** The pre-synchronized time {@code C_i} of a tick of process {@code process}. */
    double presynchronized(int process, long tick) {
        return presync[process].apply(tick);
    }

    double[] slopes() {
        return Arrays.stream(presync).mapToDouble(LinearClock::slope).toArray();
    }

    /** The minimum latencies used: {within a process, between processes}, in reference ticks. */
    double[] minimumLatencies() {
        return new double[] {muIntra, muInter};
    }

    /** What the correction did to process-local interval lengths (Becker §6.2), once {@link #retiming()} has run. */
    IntervalDeviation deviation() {
        return deviation.build();
    }

    /** The third pass: forward amortization again, plus the backward corrections. */
    PointSync.Retiming retiming() {
        Forward forward = new Forward(info, processOf, presync, muIntra, muInter, false);
        int[] nextRamp = new int[processOf.length];
        double[] widest = new double[processOf.length];
        for (int s = 0; s < widest.length; s++) {
            for (Ramp r : ramps.get(s)) {
                widest[s] = Math.max(widest[s], r.end() - r.from());
            }
        }
        return (e, process) -> {
            double original = forward.presynchronized(e);
            double lc = forward.accept(e);
            List<Ramp> of = ramps.get(e.stream);
            while (nextRamp[e.stream] < of.size() && of.get(nextRamp[e.stream]).end() <= lc) {
                nextRamp[e.stream]++;
            }
            double offset = 0;
            // Ramps are in the order of their jumps; none starting later than the widest allows can reach lc.
            for (int i = nextRamp[e.stream]; i < of.size() && of.get(i).end() - widest[e.stream] < lc; i++) {
                offset = Math.max(offset, of.get(i).at(lc));
            }
            double corrected = lc + offset;
            deviation.add(e.stream, original, corrected);
            return Math.round(corrected);
        };
    }

    /** Forward amortization over the causal order; in the first pass it also collects jumps and send limits. */
    private static final class Forward {
        private record Sent(double lc, int process, int id) {
        }

        private final int[] processOf;
        private final LinearClock[] presync;
        private final double muIntra;
        private final double muInter;
        private final boolean collect;
        private final double[] prevC;
        private final double[] prevLc;
        private final boolean[] started;
        private final MessageMatcher<Sent> messages;
        private final CollectiveMatcher<Sent> collectives = new CollectiveMatcher<>();
        /** Per logical send: the earliest time it may take (its receives less μ). */
        private double[] limit = new double[1024];
        private double[] sendTime = new double[1024];
        private int sends;
        private final List<List<Integer>> sendsOf = new ArrayList<>();
        private final List<List<double[]>> jumpsOf = new ArrayList<>();

        Forward(ProfileInfo info, int[] processOf, LinearClock[] presync, double muIntra, double muInter, boolean collect) {
            this.processOf = processOf;
            this.presync = presync;
            this.muIntra = muIntra;
            this.muInter = muInter;
            this.collect = collect;
            int streams = processOf.length;
            prevC = new double[streams];
            prevLc = new double[streams];
            started = new boolean[streams];
            messages = new MessageMatcher<>(info);
            for (int s = 0; s < streams; s++) {
                sendsOf.add(new ArrayList<>());
                jumpsOf.add(new ArrayList<>());
            }
        }

        double presynchronized(ProfileEvent e) {
            return presync[processOf[e.stream]].apply(e.tick);
        }

        private double mu(int from, int to) {
            return from == to ? muIntra : muInter;
        }

        double accept(ProfileEvent e) {
            int s = e.stream;
            int p = processOf[s];
            double c = presynchronized(e);
            double lc = c;
            if (started[s]) {
                lc = Math.max(lc, Math.max(prevLc[s] + DELTA, prevLc[s] + GAMMA * (c - prevC[s])));
            }
            double local = lc;
            if (e.kind == EventKind.RECEIVE) {
                Sent sent = messages.receive(e);
                if (sent != null) {
                    lc = Math.max(lc, sent.lc + mu(sent.process, p));
                    limitBy(sent, lc, p);
                }
            } else if (e.kind == EventKind.BARRIER_EXIT) {
                List<Sent> enters = collectives.exit(e);
                for (Sent enter : enters) {
                    lc = Math.max(lc, enter.lc + mu(enter.process, p));
                }
                for (Sent enter : enters) {
                    limitBy(enter, lc, p);
                }
            }
            if (collect && lc > local) {
                jumpsOf.get(s).add(new double[] {local, lc - local});
            }
            if (e.kind == EventKind.SEND) {
                messages.send(e, logicalSend(s, p, lc));
            } else if (e.kind == EventKind.BARRIER_ENTER) {
                collectives.enter(e, logicalSend(s, p, lc));
            }
            prevC[s] = c;
            prevLc[s] = lc;
            started[s] = true;
            return lc;
        }

        private Sent logicalSend(int stream, int process, double lc) {
            if (!collect) {
                return new Sent(lc, process, -1);
            }
            if (sends == limit.length) {
                limit = Arrays.copyOf(limit, sends * 2);
                sendTime = Arrays.copyOf(sendTime, sends * 2);
            }
            limit[sends] = Double.POSITIVE_INFINITY;
            sendTime[sends] = lc;
            sendsOf.get(stream).add(sends);
            return new Sent(lc, process, sends++);
        }

        private void limitBy(Sent sent, double receiveLc, int receiver) {
            if (collect) {
                limit[sent.id] = Math.min(limit[sent.id], receiveLc - mu(sent.process, receiver));
            }
        }

        /** Per stream, one ramp per jump: the lower convex hull of (from, 0), the sends' limits and (jump, Δ). */
        List<List<Ramp>> ramps() {
            List<List<Ramp>> all = new ArrayList<>();
            for (int s = 0; s < jumpsOf.size(); s++) {
                List<Ramp> of = new ArrayList<>();
                List<Integer> streamSends = sendsOf.get(s);
                int first = 0;
                for (double[] jump : jumpsOf.get(s)) {
                    double at = jump[0];
                    double delta = jump[1];
                    double from = at - delta / AMORTIZATION;
                    while (first < streamSends.size() && sendTime[streamSends.get(first)] <= from) {
                        first++;
                    }
                    List<double[]> points = new ArrayList<>();
                    points.add(new double[] {from, 0});
                    for (int i = first; i < streamSends.size() && sendTime[streamSends.get(i)] < at; i++) {
                        int id = streamSends.get(i);
                        points.add(new double[] {sendTime[id], Math.max(0, Math.min(delta, limit[id] - sendTime[id]))});
                    }
                    points.add(new double[] {at, delta});
                    of.add(lowerHull(from, points));
                }
                all.add(of);
            }
            return all;
        }

        /** The lower convex chain of points sorted by time (monotone chain), from the first to the last. */
        private static Ramp lowerHull(double from, List<double[]> points) {
            List<double[]> hull = new ArrayList<>();
            for (double[] q : points) {
                while (hull.size() >= 2) {
                    double[] a = hull.get(hull.size() - 2);
                    double[] b = hull.get(hull.size() - 1);
                    double cross = (b[0] - a[0]) * (q[1] - a[1]) - (b[1] - a[1]) * (q[0] - a[0]);
                    if (cross <= 0) {
                        hull.remove(hull.size() - 1);
                    } else {
                        break;
                    }
                }
                hull.add(q);
            }
            double[] t = new double[hull.size() - 1];
            double[] v = new double[hull.size() - 1];
            for (int i = 1; i < hull.size(); i++) {
                t[i - 1] = hull.get(i)[0];
                v[i - 1] = hull.get(i)[1];
            }
            return new Ramp(from, t, v);
        }
    }
}
