package dev.dprof.consolidator.sync;

import dev.dprof.calibrator.estimate.FeasibleLines;
import dev.dprof.calibrator.estimate.LinePoint;
import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.profile.ProfileException;
import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.format.FormatException;
import dev.dprof.format.profile.ProfileEvent;
import dev.dprof.format.profile.ProfileEventsReader;
import dev.dprof.format.profile.ProfileEventsWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.commons.numbers.fraction.BigFraction;

/**
 * A profile re-timed by a point synchronization ({@link SyncMethod}) from a consolidated profile:
 * the same events in the same causal order, each stamped with one point {@code lo = hi = tick} on
 * the reference, so that every analysis runs on it unchanged and the methods can be compared on
 * one run (DProf §6). Durations come from the points too (every process's rate is 1/1 against
 * its new ticks).
 *
 * <p>Each clock domain gets the line fitted to the calibration exchanges and the run's messages with
 * its parent in the calibration tree, composed along the path to the reference ({@link DomainClocks});
 * every relative timing between processes comes from the method alone.
 */
public final class PointSync {
    private PointSync() {
    }

    /** Stamps each event of a profile, met in its causal order, with a point on the reference. */
    interface Retiming {
        long point(ProfileEvent e, int process) throws ProfileException;
    }

    /** A point profile, and what each domain's clock rests on (per domain pair). */
    public record Derived(ProfileInfo info, List<ClockBasis> basis) {
    }

    /** Writes the re-timed profile into {@code out}; returns its description and each domain pair's basis. */
    public static Derived derive(Profile source, SyncMethod method, Path out) throws ProfileException, IOException {
        if (method == SyncMethod.CLC) {
            Correction c = correct(source, out);
            return new Derived(c.info(), c.basis());
        }
        List<String> problems = new ArrayList<>(source.info().problems());
        DomainClocks.Placed placed = DomainClocks.place(source, method, problems);
        LinearClock[] clocks = placed.byProcess();
        double[] slopes = new double[clocks.length];
        for (int p = 0; p < clocks.length; p++) {
            slopes[p] = clocks[p].slope();
        }
        ProfileInfo info = write(source, method, (e, p) -> Math.round(clocks[p].apply(e.tick)), slopes, problems, out);
        return new Derived(info, placed.basis());
    }

    /** The controlled logical clock's profile, and what the correction did to local timings. */
    public record Correction(ProfileInfo info, IntervalDeviation deviation, double minimumLatencyWithinNs,
                             double minimumLatencyBetweenNs, List<ClockBasis> basis) {
    }

    /** {@link SyncMethod#CLC} into {@code out}. */
    public static Correction correct(Profile source, Path out) throws ProfileException, IOException {
        List<String> problems = new ArrayList<>(source.info().problems());
        ControlledLogicalClock clc = ControlledLogicalClock.prepare(source, problems);
        ProfileInfo info = write(source, SyncMethod.CLC, clc.retiming(), clc.slopes(), problems, out);
        double nsPerTick = 1e9 / info.referenceTickHz();
        return new Correction(info, clc.deviation(), clc.minimumLatencies()[0] * nsPerTick,
                clc.minimumLatencies()[1] * nsPerTick, clc.basis());
    }

    /** The source's events in its order, each re-stamped; {@code slopes}: each process's ticks to reference ticks. */
    static ProfileInfo write(Profile source, SyncMethod method, Retiming retiming, double[] slopes, List<String> problems,
                             Path out) throws ProfileException, IOException {
        ProfileInfo info = source.info();
        Files.createDirectories(out);
        long events = 0;
        try (ProfileEventsReader reader = source.events();
             ProfileEventsWriter writer = new ProfileEventsWriter(out.resolve(Profile.EVENTS), info.truth())) {
            int[] processOf = new int[info.streams().size()];
            info.streams().forEach(s -> processOf[s.index()] = s.process());
            ProfileEvent e = new ProfileEvent();
            while (reader.next(e)) {
                long point = retiming.point(e, processOf[e.stream]);
                e.tick = point;
                e.lo = point;
                e.hi = point;
                writer.write(e);
                events++;
            }
        } catch (FormatException e) {
            throw new ProfileException(source.dir() + ": " + e.getMessage());
        }
        List<ProfileInfo.Process> processes = new ArrayList<>();
        for (ProfileInfo.Process p : info.processes()) {
            processes.add(new ProfileInfo.Process(p.index(), p.host(), p.pid(), p.domain(), "POINT",
                    info.referenceTickHz(), p.probeCostTicks() * slopes[p.index()], p.simulatedClock(), p.lostEvents(),
                    p.ended(), "1/1", "1/1", 1, 1, p.instances(), p.calibration()));
        }
        ProfileInfo derived = new ProfileInfo(ProfileInfo.FORMAT_VERSION, method.label(), method.assumption(),
                info.referenceDomain(), info.referenceTickHz(), info.window(), info.truth(), processes, info.streams(),
                info.regions(), info.messages(), events, info.causalityConflicts(), 0, problems, info.handoffs(),
                info.weaving(), info.leftOut());
        Profile.writeInfo(out, derived);
        return derived;
    }

    /** A line from one clock to another, and how it was found, in words. */
    record Fit(LinearClock line, String how) {
    }

    /**
     * The line from a node's ticks to its parent's through the points of both directions: {@code up}
     * holds (node's send, parent's receive), {@code down} (parent's send, node's receive). The convex
     * hull falls back to the regression, said in {@code problems}, where no line separates the two.
     */
    static Fit fit(MessagePairs.Direction up, MessagePairs.Direction down, SyncMethod method, String pair,
                   List<String> problems) {
        long x0 = up.n > 0 ? up.sent[0] : down.received[0];
        long y0 = up.n > 0 ? up.received[0] : down.sent[0];
        if (method == SyncMethod.CH) {
            Optional<LinearClock> middle = corridorMiddle(up, down, x0, y0);
            if (middle.isPresent()) {
                return new Fit(middle.get(), "the middle of the convex hulls' corridor");
            }
            problems.add(String.format("ch: no line separates the points of %s by direction (%d up, %d down): linear "
                    + "regression used for it", pair, up.n, down.n));
        }
        double[] sums = new double[4];
        accumulate(up.sent, up.received, up.n, x0, y0, sums);
        accumulate(down.received, down.sent, down.n, x0, y0, sums);
        LinearClock line = LinearClock.leastSquares(x0, y0, (long) up.n + down.n, sums[0], sums[1], sums[2], sums[3]);
        return new Fit(line, method == SyncMethod.CH ? "linear regression (no corridor between the hulls)"
                : "the least-squares line");
    }

    /** Adds the points {@code (xs[i], ys[i])} to the sums of dx, dy, dx², dx·dy. */
    private static void accumulate(long[] xs, long[] ys, int n, long x0, long y0, double[] sums) {
        for (int i = 0; i < n; i++) {
            double dx = xs[i] - x0;
            double dy = ys[i] - y0;
            sums[0] += dx;
            sums[1] += dy;
            sums[2] += dx * dx;
            sums[3] += dx * dy;
        }
    }

    /**
     * Duda's convex hull: a message up (node → parent) puts the line below its point, one down above
     * it; the lines between are the corridor, and the map is the line through its middle at the
     * first and the last tick of the data. Empty when one direction has no message or no line fits.
     */
    static Optional<LinearClock> corridorMiddle(MessagePairs.Direction up, MessagePairs.Direction down, long x0, long y0) {
        if (up.n == 0 || down.n == 0) {
            return Optional.empty();
        }
        List<LinePoint> points = new ArrayList<>(up.n + down.n);
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        for (int i = 0; i < up.n; i++) {
            points.add(LinePoint.upper(up.sent[i] - x0, up.received[i] - y0));
            first = Math.min(first, up.sent[i] - x0);
            last = Math.max(last, up.sent[i] - x0);
        }
        for (int i = 0; i < down.n; i++) {
            points.add(LinePoint.lower(down.received[i] - x0, down.sent[i] - y0));
            first = Math.min(first, down.received[i] - x0);
            last = Math.max(last, down.received[i] - x0);
        }
        Optional<FeasibleLines> corridor = FeasibleLines.of(points);
        if (corridor.isEmpty() || last <= first) {
            return Optional.empty();
        }
        double mFirst = middle(corridor.get(), first);
        double mLast = middle(corridor.get(), last);
        double slope = (mLast - mFirst) / (last - first);
        return Optional.of(new LinearClock(x0 + first, y0 + mFirst, slope));
    }

    private static double middle(FeasibleLines corridor, long x) {
        BigFraction lo = corridor.lowest(x);
        BigFraction hi = corridor.highest(x);
        return lo.add(hi).divide(2).doubleValue();
    }
}
