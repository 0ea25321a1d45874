package dev.dprof.calibrator.estimate;

import dev.dprof.format.calibration.DomainCalibration;
import dev.dprof.format.calibration.Zero;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.apache.commons.numbers.fraction.BigFraction;

/**
 * The sound conversion of one domain's ticks to its parent's, from its zeros and any extra
 * points (matched messages), under a {@link DriftModel} (DProf §4.3, with the corrections of
 * DESIGN.md "Clocks, and why the bounds hold").
 *
 * <p>A tick {@code k} is a reading of a continuous clock in {@code [k, k+1)}, so its parent
 * value lies in {@code [L(k), U(k+1)]}; {@link #lowerAt}/{@link #upperAt} give those envelope
 * bounds for any continuous position, which is what composition along a tree needs.
 */
public final class DomainConversion {
    /**
     * How far outside the calibrated span, in seconds of the node's nominal clock, a tick still
     * gets a bound. The curvature bound {@code D} rests on the largest frequency the clock can
     * reach, which grows with the distance from the zeros ({@link #curvature}); it is computed for
     * this horizon, and a tick beyond it gets no bound rather than a wrong one.
     */
    public static final double HORIZON_SECONDS = 3600;

    private final DomainCalibration calibration;
    private final DriftModel drift;
    private final List<Window> windows;
    private final long[] windowStarts;
    /** {@code {lowNum, lowDen, highNum, highDen}} of the mean-frequency bounds, or null. */
    private final long[] meanFrequency;
    /** The calibrated span: the first zero's {@code k1} to the last zero's {@code k2}. */
    private final long spanFrom;
    private final long spanTo;
    /** Ticks in {@code [boundedFrom, boundedTo]} get bounds: the span widened by the horizon. */
    private final long boundedFrom;
    private final long boundedTo;
    /** Stretches of consecutive zeros that contradict the drift bound ({@link DriftCheck}). */
    private final List<DriftCheck.Violation> violations;
    /** The zeros in k1 order (for reports). */
    private final List<Zero> zeros;
    /** The smallest {@code ρ·2ᵏ} ppm/s the data do not contradict, when the model's ρ is contradicted. */
    private final Double supportedPpm;
    /** Whether the data contradict the assumption anywhere: then no tick of the domain gets a bound. */
    private final boolean contradicted;
    /** The one zero (index in k1 order) without which the rest fits the assumption, or -1. */
    private final int suspect;
    /**
     * Why the domain's counter is not one clock (its agent's check, format {@code ClockCheck}), or null:
     * then no tick gets a bound, whatever the zeros say.
     */
    private final String clockFault;

    private DomainConversion(DomainCalibration calibration, DriftModel drift, List<Zero> zeros, List<Window> windows,
                             long[] meanFrequency, List<DriftCheck.Violation> violations, Double supportedPpm) {
        this(calibration, drift, zeros, windows, meanFrequency, violations, supportedPpm, -1);
    }

    private DomainConversion(DomainCalibration calibration, DriftModel drift, List<Zero> zeros, List<Window> windows,
                             long[] meanFrequency, List<DriftCheck.Violation> violations, Double supportedPpm,
                             int suspect) {
        this(calibration, drift, zeros, windows, meanFrequency, violations, supportedPpm, suspect, null);
    }

    private DomainConversion(DomainCalibration calibration, DriftModel drift, List<Zero> zeros, List<Window> windows,
                             long[] meanFrequency, List<DriftCheck.Violation> violations, Double supportedPpm,
                             int suspect, String clockFault) {
        this.suspect = suspect;
        this.clockFault = clockFault;
        this.calibration = calibration;
        this.drift = drift;
        this.zeros = zeros;
        this.windows = windows;
        this.windowStarts = windows.stream().mapToLong(w -> w.from).toArray();
        this.meanFrequency = meanFrequency;
        this.violations = violations;
        this.supportedPpm = supportedPpm;
        this.contradicted = clockFault != null || !violations.isEmpty() || windows.stream().anyMatch(Window::contradicted);
        this.spanFrom = zeros.isEmpty() ? 0 : zeros.get(0).k1();
        this.spanTo = zeros.stream().mapToLong(Zero::k2).max().orElse(0);
        double horizon = Math.ceil(HORIZON_SECONDS * calibration.nominalTickHz());
        this.boundedFrom = (double) spanFrom - horizon <= Long.MIN_VALUE ? Long.MIN_VALUE : spanFrom - (long) horizon;
        this.boundedTo = (double) spanTo + horizon >= Long.MAX_VALUE ? Long.MAX_VALUE : spanTo + (long) horizon;
    }

    /**
     * Builds the conversion.
     *
     * @param extra points from matched messages, in this domain's ticks against the parent's
     */
    static DomainConversion build(DomainCalibration calibration, DriftModel drift, List<LinePoint> extra) {
        List<Zero> zeros = new ArrayList<>(calibration.zeros());
        zeros.sort(Comparator.comparingLong(Zero::k1));
        if (zeros.isEmpty()) {
            return new DomainConversion(calibration, drift, List.of(), List.of(), null, List.of(), null);
        }
        Zero first = zeros.get(0);
        Zero last = zeros.get(zeros.size() - 1);
        long[] mean = meanFrequency(zeros);
        double meanHigh = mean == null ? Double.NaN : ratio(mean[2], mean[3]);
        List<Window> windows = new ArrayList<>();
        List<DriftCheck.Violation> violations = List.of();
        Double supported = null;
        if (drift instanceof DriftModel.Constant || zeros.size() == 1) {
            List<LinePoint> points = new ArrayList<>(extra);
            zeros.forEach(z -> points.addAll(List.of(Constraints.of(z))));
            windows.add(new Window(Long.MIN_VALUE, Long.MAX_VALUE, points,
                    drift instanceof DriftModel.BoundedDrift b ? curvature(b.ppmPerSecond(), calibration, meanHigh, first, last) : 0));
        } else {
            double ppm = ((DriftModel.BoundedDrift) drift).ppmPerSecond();
            double curvature = curvature(ppm, calibration, meanHigh, first, last);
            List<LinePoint> sortedExtra = DriftCheck.sortedByX(extra);
            violations = DriftCheck.violations(zeros, sortedExtra, curvature);
            if (!violations.isEmpty()) {
                supported = weakestSupported(zeros, sortedExtra, violations, ppm, calibration, meanHigh);
                // The assumption is refuted: no tick gets a bound, so no window is built. A single
                // zero that explains it is named, never dropped: whether it lies or the drift broke
                // the model around it, the data cannot tell.
                return new DomainConversion(calibration, drift, zeros, List.of(), mean, violations, supported,
                        suspect(zeros, sortedExtra, violations, curvature));
            }
            for (int i = 0; i + 1 < zeros.size(); i++) {
                Zero left = zeros.get(i);
                Zero right = zeros.get(i + 1);
                long from = i == 0 ? Long.MIN_VALUE : left.k1();
                long to = i + 2 == zeros.size() ? Long.MAX_VALUE : right.k1();
                List<LinePoint> points = new ArrayList<>(List.of(Constraints.of(left)));
                points.addAll(List.of(Constraints.of(right)));
                // The extra points in [k1, k2 + 1], found in the sorted copy rather than by a pass
                // over all of them per window (thousands of matched messages times the windows, on
                // every round of the message constraints). In any order: a window sorts its points
                // itself (PointHull), so the order it gets them in changes nothing.
                for (int k = DriftCheck.firstAtLeast(sortedExtra, left.k1()); k < sortedExtra.size(); k++) {
                    LinePoint p = sortedExtra.get(k);
                    if (p.x() > right.k2() && p.x() - 1 != right.k2()) {
                        break; // sorted: every later point lies beyond too
                    }
                    points.add(p);
                }
                windows.add(new Window(from, to, points, curvature));
            }
        }
        return new DomainConversion(calibration, drift, zeros, windows, mean, violations, supported);
    }

    /**
     * The same domain when its counter is not one clock ({@code fault}, one line): its quality is
     * {@link Quality#CONTRADICTED}, since the data (the agent's clock check) contradict the
     * assumption every bound rests on, and no tick gets a bound.
     */
    DomainConversion withClockFault(String fault) {
        return new DomainConversion(calibration, drift, zeros, List.of(), meanFrequency, violations, supportedPpm,
                suspect, fault);
    }

    /** Why the domain's counter is not one clock, when its agent's check said so. */
    public Optional<String> clockFault() {
        return Optional.ofNullable(clockFault);
    }

    /**
     * The smallest {@code ρ·2ᵏ} (up to the model's limit) under which none of the violated
     * stretches is contradicted any more, or null if none is. A larger bound only widens every
     * relaxation, so the stretches that passed under ρ pass under it too.
     */
    private static Double weakestSupported(List<Zero> zeros, List<LinePoint> extra,
                                           List<DriftCheck.Violation> violations, double ppm,
                                           DomainCalibration calibration, double meanHigh) {
        Zero first = zeros.get(0);
        Zero last = zeros.get(zeros.size() - 1);
        for (double weaker = 2 * ppm; weaker <= DriftModel.BoundedDrift.MAX_PPM_PER_SECOND; weaker *= 2) {
            double curvature = curvature(weaker, calibration, meanHigh, first, last);
            boolean all = true;
            for (DriftCheck.Violation v : violations) {
                if (!DriftCheck.consistent(zeros, v.firstZero(), v.lastZero(), extra, curvature)) {
                    all = false;
                    break;
                }
            }
            if (all) {
                return weaker;
            }
        }
        return null;
    }

    /**
     * The one zero that every violated stretch holds and without which no stretch is violated, or
     * -1 if there is none or more than one: a single false (forged, corrupted) zero among true
     * ones shows this way. Only the stretches that hold the gap it leaves are tested again (every
     * other one is a stretch of the full list that holds no violated zero, so it fits):
     * O(violations × {@value DriftCheck#LONGEST}²) clips.
     */
    private static int suspect(List<Zero> zeros, List<LinePoint> extra, List<DriftCheck.Violation> violations,
                               double curvature) {
        int from = violations.stream().mapToInt(DriftCheck.Violation::firstZero).max().orElseThrow();
        int to = violations.stream().mapToInt(DriftCheck.Violation::lastZero).min().orElseThrow();
        int found = -1;
        for (int j = from; j <= to; j++) {
            List<Zero> without = new ArrayList<>(zeros);
            without.remove(j);
            // The zero after the gap, or the one before it at the end: every stretch that spans the gap holds it.
            boolean fits = without.isEmpty() || DriftCheck.consistentAround(without, Math.min(j, without.size() - 1),
                    extra, curvature);
            if (fits) {
                if (found >= 0) {
                    return -1; // two zeros each explain it: none is singled out
                }
                found = j;
            }
        }
        return found;
    }

    /** How many zeros at each end of the run are candidates for the mean-frequency bound. */
    public static final int EDGE_CANDIDATES = 3;

    /**
     * Bounds on the mean relative frequency between two zeros, needing no assumption:
     * {@code c(k2_j + 1) − c(k1_i) > a_j − a_i − 1} and {@code c(k1_j) − c(k2_i + 1) < a_j + 1 − a_i}
     * (DProf Alg. 3). Their width is about {@code (w_i + w_j)/span}, so of the pairs among the first
     * and last {@value #EDGE_CANDIDATES} zeros the narrowest is taken; null with fewer than two zeros.
     * Returned as {@code {lowNum, lowDen, highNum, highDen}}, both denominators positive: widths
     * are compared by cross-multiplication, and a fraction is reduced only when asked for.
     */
    private static long[] meanFrequency(List<Zero> zeros) {
        long[] best = null;
        BigInteger[] bestWidth = null;
        int n = zeros.size();
        for (int i = 0; i < Math.min(EDGE_CANDIDATES, n); i++) {
            for (int j = Math.max(i + 1, n - EDGE_CANDIDATES); j < n; j++) {
                Zero a = zeros.get(i);
                Zero b = zeros.get(j);
                long[] bounds;
                try {
                    bounds = new long[] {Math.subtractExact(Math.subtractExact(b.a(), a.a()), 1),
                        Math.addExact(Math.subtractExact(b.k2(), a.k1()), 1),
                        Math.addExact(Math.subtractExact(b.a(), a.a()), 1),
                        Math.subtractExact(Math.subtractExact(b.k1(), a.k2()), 1)};
                } catch (ArithmeticException beyondLong) {
                    continue; // a pair whose differences do not fit a long is left out: fewer pairs, a wider bound
                }
                if (bounds[3] <= 0) {
                    continue;
                }
                // hi − lo = (hiNum·loDen − loNum·hiDen) / (hiDen·loDen)
                BigInteger loNum = BigInteger.valueOf(bounds[0]);
                BigInteger loDen = BigInteger.valueOf(bounds[1]);
                BigInteger hiNum = BigInteger.valueOf(bounds[2]);
                BigInteger hiDen = BigInteger.valueOf(bounds[3]);
                BigInteger[] width = {hiNum.multiply(loDen).subtract(loNum.multiply(hiDen)), hiDen.multiply(loDen)};
                if (bestWidth == null
                        || width[0].multiply(bestWidth[1]).compareTo(bestWidth[0].multiply(width[1])) < 0) {
                    best = bounds;
                    bestWidth = width;
                }
            }
        }
        return best;
    }

    /**
     * {@code num/den} rounded to the nearest double, as {@link BigFraction#doubleValue} rounds:
     * one IEEE division when both are exact doubles.
     */
    private static double ratio(long num, long den) {
        long limit = 1L << 53;
        if (Math.abs(num) <= limit && Math.abs(den) <= limit) {
            return (double) num / den;
        }
        return BigFraction.of(num, den).doubleValue();
    }

    /**
     * The bound on the conversion's curvature, in parent ticks per node tick²: {@code ρ·F/f}, with
     * {@code F} the largest the relative frequency can be anywhere within {@link #HORIZON_SECONDS}
     * of the zeros (somewhere in the span it equals its mean, and from there it changes at most by
     * {@code e^{ρ·|t|}}), {@code f} the node's nominal rate. Beyond the horizon it does not hold,
     * and no tick there gets a bound.
     */
    private static double curvature(double ppmPerSecond, DomainCalibration calibration,
                                    double meanHigh, Zero first, Zero last) {
        double rho = ppmPerSecond * 1e-6;
        double hz = calibration.nominalTickHz();
        double span = ((double) last.k2() - (double) first.k1()) / hz + HORIZON_SECONDS;
        // A mean-frequency bound that is not positive is itself a contradiction (the windows show
        // it); the curvature then rests on the box alone.
        double fMax = (meanHigh > 0 ? meanHigh : FeasibleLines.F_MAX.doubleValue())
                * Math.exp(rho * span) * (1 + 1e-9);
        return rho * fMax / (hz * 0.999);
    }

    public DomainCalibration calibration() {
        return calibration;
    }

    public DriftModel drift() {
        return drift;
    }

    public Quality quality() {
        if (calibration.isReference()) {
            return Quality.REFERENCE;
        }
        if (zeros.isEmpty()) {
            return Quality.ABSENT;
        }
        if (contradicted) {
            return Quality.CONTRADICTED;
        }
        return zeros.size() == 1 ? Quality.SINGLE_ZERO : Quality.BOUNDED;
    }

    /**
     * Stretches {@code [from, to]} of node ticks whose data contradict the drift assumption: the
     * stretches of consecutive zeros that failed the check, or the window whose points
     * no line fits.
     */
    public List<long[]> contradictedStretches() {
        List<long[]> out = new ArrayList<>();
        if (clockFault != null && !zeros.isEmpty()) {
            out.add(new long[] {spanFrom, spanTo});
        }
        violations.forEach(v -> out.add(new long[] {v.from(), v.to()}));
        windows.stream().filter(Window::contradicted)
                .forEach(w -> out.add(new long[] {Math.max(w.from, spanFrom), Math.min(w.to, spanTo)}));
        return out;
    }

    /**
     * Where the assumption broke, in words: the first contradicted stretch by epochs and seconds
     * after the first zero, and how many there are; empty when nothing contradicts it.
     */
    public Optional<String> contradiction() {
        if (!contradicted) {
            return Optional.empty();
        }
        if (clockFault != null) {
            return Optional.of("the counter is not one clock: " + clockFault);
        }
        double hz = calibration.nominalTickHz();
        if (!violations.isEmpty()) {
            DriftCheck.Violation v = violations.get(0);
            String alone = suspect < 0 ? "" : String.format(Locale.ROOT, "; the zero of epoch %d alone explains it"
                    + " (without it the zeros fit): a false or forged zero, or drift beyond the model around it",
                    zeros.get(suspect).epoch());
            return Optional.of(String.format(Locale.ROOT,
                    "%d of %d stretches of %d to %d consecutive zeros contradict it, the first at epochs %d–%d (%.3f–%.3f s after the first zero)%s",
                    violations.size(), DriftCheck.stretchCount(zeros.size()), DriftCheck.ZEROS, DriftCheck.LONGEST,
                    zeros.get(v.firstZero()).epoch(), zeros.get(v.lastZero()).epoch(),
                    ((double) v.from() - spanFrom) / hz, ((double) v.to() - spanFrom) / hz, alone));
        }
        long[] first = contradictedStretches().get(0);
        return Optional.of(String.format(Locale.ROOT, "no line fits the points between %.3f and %.3f s after the first zero",
                ((double) first[0] - spanFrom) / hz, ((double) first[1] - spanFrom) / hz));
    }

    /**
     * What a contradicted domain falls back to, in words: no bound, and how fast the drift is at
     * least — the largest {@code bounded:ρ·2ᵏ} the zeros refute. The first doubling they do not
     * refute is named too, but only as that: data that do not refute a bound do not prove it (in
     * the test bed a wander of 314 ppm/s is not refuted under 128 ppm/s, which then misses).
     */
    public Optional<String> fallback() {
        if (!contradicted) {
            return Optional.empty();
        }
        String fallback = "no bound for any tick of this domain";
        if (clockFault != null) {
            return Optional.of(fallback + " (its ticks are not readings of one steady clock)");
        }
        if (drift instanceof DriftModel.BoundedDrift b) {
            String refuted = supportedPpm == null ? "every doubling of the bound up to " + plain(DriftModel.BoundedDrift.MAX_PPM_PER_SECOND) + " ppm/s"
                    : "every bound up to bounded:" + plain(supportedPpm / 2) + ", not bounded:" + plain(supportedPpm);
            fallback += "; the zeros refute " + refuted + (supportedPpm == null ? ""
                    : " (which they do not prove either: the drift may be faster still)");
        }
        return Optional.of(fallback);
    }

    /** The weakest {@code bounded:ρ·2ᵏ} the data do not refute, when the model's own is refuted (not a safe assumption). */
    public Optional<String> supportedModel() {
        return supportedPpm == null ? Optional.empty() : Optional.of("bounded:" + plain(supportedPpm));
    }

    private static String plain(double ppm) {
        return BigDecimal.valueOf(ppm).stripTrailingZeros().toPlainString();
    }

    /**
     * How many stretches the checks tested: the whole span when the counter's own check ran, every
     * stretch of {@value DriftCheck#ZEROS} to {@value DriftCheck#LONGEST} consecutive zeros under a
     * drift bound, and every window whose points a line must fit; {@link #contradictedStretches}
     * counts the failures among them.
     */
    public int checkedStretches() {
        int stretches = drift instanceof DriftModel.BoundedDrift && zeros.size() > 1 ? DriftCheck.stretchCount(zeros.size()) : 0;
        return (clockFault != null && !zeros.isEmpty() ? 1 : 0) + stretches + windows.size();
    }

    /** The calibrated span's first node tick (the first zero's {@code k1}). */
    public long spanFrom() {
        return spanFrom;
    }

    /** The calibrated span's last node tick (the last zero's {@code k2}). */
    public long spanTo() {
        return spanTo;
    }

    /** Whether a tick lies outside the calibrated span. */
    boolean outsideSpan(long tick) {
        return tick < spanFrom || tick > spanTo;
    }

    /** Whether a tick lies beyond the horizon, where no bound is given. */
    boolean beyondHorizon(long tick) {
        return tick < boundedFrom || tick > boundedTo;
    }

    /**
     * Bounds on the relative frequency {@code c'(x)} for every x in {@code [from, to]}, under the
     * drift assumption: a duration of {@code Δk} node ticks there lasts between {@code Δk·lo} and
     * {@code Δk·hi} parent ticks. Every window bounds the derivative everywhere within the
     * horizon — its chord slopes widened by how far the range reaches beyond its points
     * ({@link Window#slopeBounds}) — so the bound is the intersection over all windows: a
     * duration between zeros costs what its own window says or less, one outside the span is paid
     * for by its own distance, and one wide zero (an exchange measured before the JIT warmed up)
     * cannot widen what its tight neighbours establish. Null when the data contradict the
     * assumption, or when the range reaches beyond the horizon.
     */
    public BigFraction[] slopeBounds(long from, long to) {
        if (contradicted || windows.isEmpty() || from > to || beyondHorizon(from) || beyondHorizon(to)) {
            return null;
        }
        BigFraction lo = null;
        BigFraction hi = null;
        for (Window w : windows) {
            BigFraction[] bounds = w.slopeBounds(from, to);
            lo = lo == null || bounds[0].compareTo(lo) > 0 ? bounds[0] : lo;
            hi = hi == null || bounds[1].compareTo(hi) < 0 ? bounds[1] : hi;
        }
        // Each holds if the assumption does, so an empty intersection refutes it: no bound then.
        return lo.compareTo(hi) > 0 ? null : new BigFraction[] {lo, hi};
    }

    /** {@link #slopeBounds(long, long)} over the calibrated span. */
    public BigFraction[] slopeBounds() {
        return slopeBounds(spanFrom, spanTo);
    }

    /** Bounds on the mean relative frequency between two zeros near the run's ends; needs no assumption. */
    public BigFraction meanFrequencyLow() {
        return meanFrequency == null ? null : BigFraction.of(meanFrequency[0], meanFrequency[1]);
    }

    public BigFraction meanFrequencyHigh() {
        return meanFrequency == null ? null : BigFraction.of(meanFrequency[2], meanFrequency[3]);
    }

    /**
     * The window serving x: under bounded drift the one between the two zeros around it (the
     * first one before the second zero, the last one after the last). A tick before the second
     * zero also takes the second window's bound where it is tighter ({@link #convertSorted},
     * {@link Cursor}): every window's relaxed bound holds everywhere within the horizon
     * (docs/BOUNDS.md, "Drift"), and the first zero may be a wide one measured before the JIT
     * warmed up — the agent's exchange before the application's main.
     */
    int windowFor(long x, int hint) {
        int w = Math.max(0, Math.min(hint, windows.size() - 1));
        while (w + 1 < windows.size() && x >= windowStarts[w + 1]) {
            w++;
        }
        while (w > 0 && x < windowStarts[w]) {
            w--;
        }
        return w;
    }

    Window window(int w) {
        return windows.get(w);
    }

    /** Whether the domain has no zeros (and so cannot be converted at all). */
    boolean isEmpty() {
        return zeros.isEmpty();
    }

    /**
     * Converts ascending ticks in bulk: {@code lo[i] ≤ L(ticks[i])} and
     * {@code hi[i] ≥ U(ticks[i] + 1)}, the parent-continuous bounds of each reading;
     * {@code Long.MIN_VALUE}/{@code MAX_VALUE} where the data contradict the assumption or the
     * tick lies beyond the horizon.
     *
     * <p>Implementation notes: the ticks are cut into runs over which everything is constant —
     * window, envelope pieces, the sign of the offset from each anchor (which picks the slope's
     * rounding), the drift slack bucket — found by binary search, so the inner loop is a counted
     * loop of two subtractions, two 64×64 multiplies and two high multiplies per tick, which the
     * JIT unrolls. Each run checks once, at its ends, that no sum or product in it can overflow
     * ({@link #checkRange}); a run that could is refused as a whole.
     *
     * @return how many ticks got no bound
     * @throws ArithmeticException if a sum or product could overflow: the caller converts those
     *         ticks one by one on the checked path
     */
    int convertSorted(long[] ticks, int n, long[] lo, long[] hi) {
        boolean allWithin = ticks[0] >= boundedFrom && ticks[n - 1] <= boundedTo; // the usual case: no search
        int first = allWithin ? 0 : firstAtLeast(ticks, 0, n, boundedFrom);
        int end = allWithin || boundedTo == Long.MAX_VALUE ? n : firstAtLeast(ticks, first, n, boundedTo + 1);
        if (contradicted || windows.isEmpty()) {
            first = n;
            end = n;
        }
        java.util.Arrays.fill(lo, 0, first, Long.MIN_VALUE);
        java.util.Arrays.fill(hi, 0, first, Long.MAX_VALUE);
        java.util.Arrays.fill(lo, Math.max(first, end), n, Long.MIN_VALUE);
        java.util.Arrays.fill(hi, Math.max(first, end), n, Long.MAX_VALUE);
        if (first < end && ticks[end - 1] == Long.MAX_VALUE) {
            throw new ArithmeticException("a tick of Long.MAX_VALUE has no representable upper end");
        }
        convertRuns(ticks, first, end, lo, hi, -1);
        if (first < end && windows.size() > 1 && ticks[first] < windowStarts[1]) {
            // Before the second zero: the first window, narrowed by the second's extrapolation.
            int stop = Math.min(end, firstAtLeast(ticks, first, end, windowStarts[1]));
            long[] lo2 = new long[stop];
            long[] hi2 = new long[stop];
            convertRuns(ticks, first, stop, lo2, hi2, 1);
            for (int k = first; k < stop; k++) {
                lo[k] = Math.max(lo[k], lo2[k]);
                hi[k] = Math.min(hi[k], hi2[k]);
            }
        }
        return n - Math.max(0, end - first);
    }

    /**
     * Converts {@code ticks[first, end)} (within the horizon) run by run, each with the window
     * that serves it, or all with window {@code fixed} when it is not negative.
     */
    private void convertRuns(long[] ticks, int first, int end, long[] lo, long[] hi, int fixed) {
        int n = end;
        int w = fixed >= 0 ? fixed : first < end ? windowFor(ticks[first], 0) : 0;
        int pl = 0;
        int ph = 0;
        int lastWindow = -1;
        int i = first;
        while (i < end) {
            long t = ticks[i];
            while (fixed < 0 && w + 1 < windows.size() && t >= windowStarts[w + 1]) {
                w++;
            }
            Window win = windows.get(w);
            long windowEnd = fixed < 0 && w + 1 < windows.size() ? windowStarts[w + 1] : Long.MAX_VALUE;
            if (lastWindow != w) {
                lastWindow = w;
                pl = 0;
                ph = 0;
            }
            Envelope low = win.low;
            Envelope high = win.high;
            pl = low.locate(t, pl);
            ph = high.locate(t + 1, ph);
            long xl = low.anchor(pl);
            long xh = high.anchor(ph);
            boolean posL = t >= xl;
            boolean posH = t + 1 >= xh;
            long boundary = Math.min(windowEnd, Math.min(low.nextStart(pl), high.nextStart(ph) - 1));
            boundary = Math.min(boundary, win.nextSlackChange(t));
            if (!posL) {
                boundary = Math.min(boundary, xl);
            }
            if (!posH) {
                boundary = Math.min(boundary, Math.subtractExact(xh, 1));
            }
            int j = Math.min(end, firstAtLeast(ticks, i, n, boundary));
            long slack = win.slackFor(t);
            if (slack == Window.NO_BOUND || !low.exact(pl) || !high.exact(ph)) {
                throw new ArithmeticException("a bound beyond the exact range");
            }
            runLower(ticks, i, j, lo, xl, Math.subtractExact(low.value(pl), slack), low.slopeInt(pl, posL),
                    low.slopeFrac(pl, posL));
            runUpper(ticks, i, j, hi, Math.subtractExact(xh, 1), Math.addExact(high.value(ph), slack),
                    high.slopeInt(ph, posH), high.slopeFrac(ph, posH));
            i = j;
        }
    }

    /** {@code out[k] = v + floor((ticks[k] − x0)·F)} over a run. */
    private static void runLower(long[] ticks, int from, int to, long[] out, long x0, long v, long fi, long ff) {
        checkRange(Math.subtractExact(ticks[from], x0), Math.subtractExact(ticks[to - 1], x0), fi, v);
        fillLower(ticks, from, to, out, x0, v, fi, ff);
    }

    /** {@code out[k] = v + ceil((ticks[k] − x0)·F) = v − floor((x0 − ticks[k])·F)} over a run. */
    private static void runUpper(long[] ticks, int from, int to, long[] out, long x0, long v, long fi, long ff) {
        checkRange(Math.subtractExact(x0, ticks[from]), Math.subtractExact(x0, ticks[to - 1]), fi, v);
        fillUpper(ticks, from, to, out, x0, v, fi, ff);
    }

    /** {@link #runLower} once {@link #checkRange} has passed for offsets that bound the run's. */
    private static void fillLower(long[] ticks, int from, int to, long[] out, long x0, long v, long fi, long ff) {
        long correction = ff >> 63;
        for (int k = from; k < to; k++) {
            long d = ticks[k] - x0;
            out[k] = v + d * fi + Math.multiplyHigh(d, ff) + (correction & d);
        }
    }

    /** {@link #runUpper} once {@link #checkRange} has passed for offsets that bound the run's. */
    private static void fillUpper(long[] ticks, int from, int to, long[] out, long x0, long v, long fi, long ff) {
        long correction = ff >> 63;
        for (int k = from; k < to; k++) {
            long d = x0 - ticks[k];
            out[k] = v - (d * fi + Math.multiplyHigh(d, ff) + (correction & d));
        }
    }

    /**
     * Finds the stretch of ticks from {@code t} on over which {@link #convertSorted} uses one set
     * of constants (one run of {@link #convertRuns}: window, envelope pieces, signs of the offsets,
     * slack bucket), and fills {@code run} with it, so that a thread's later chunks that fall inside
     * it are converted without the search ({@link Run#convert}). Ticks of one thread ascend, and a
     * run spans a slack bucket (a sixteenth of the window between two zeros, about 0.2 s at the
     * calibrator's default period) or an envelope piece, against a few milliseconds per chunk: most
     * chunks fall inside the run of the chunk before.
     *
     * <p>The stretch is kept inside the calibrated span and after the second zero, where no tick
     * counts as outside the span and no second window narrows the first; and the exact-range test of
     * {@link #checkRange} is passed for both of its ends, so for every tick between them.
     *
     * @return false, with {@code run} emptied, when there is no such stretch from {@code t}: the
     *         general path then converts
     */
    boolean runAt(long t, Run run) {
        run.from = 0;
        run.to = 0;
        if (contradicted || windows.isEmpty() || t < spanFrom || t >= spanTo
                || windows.size() > 1 && t < windowStarts[1]) {
            return false;
        }
        int w = windowFor(t, run.window);
        if (w != run.window) {
            run.window = w;
            run.lowPiece = 0;
            run.highPiece = 0;
        }
        Window win = windows.get(w);
        Envelope low = win.low;
        Envelope high = win.high;
        int pl = low.locate(t, run.lowPiece);
        int ph = high.locate(t + 1, run.highPiece);
        run.lowPiece = pl;
        run.highPiece = ph;
        long xl = low.anchor(pl);
        long xh = high.anchor(ph);
        long slack = win.slackFor(t);
        if (xh == Long.MIN_VALUE || slack == Window.NO_BOUND || !low.exact(pl) || !high.exact(ph)) {
            return false;
        }
        boolean posL = t >= xl;
        boolean posH = t + 1 >= xh;
        long windowEnd = w + 1 < windows.size() ? windowStarts[w + 1] : Long.MAX_VALUE;
        long boundary = Math.min(windowEnd, Math.min(low.nextStart(pl), high.nextStart(ph) - 1));
        boundary = Math.min(boundary, win.nextSlackChange(t));
        if (!posL) {
            boundary = Math.min(boundary, xl);
        }
        if (!posH) {
            boundary = Math.min(boundary, xh - 1);
        }
        boundary = Math.min(boundary, spanTo); // t < spanTo: the stretch is never empty
        try {
            long vl = Math.subtractExact(low.value(pl), slack);
            long vh = Math.addExact(high.value(ph), slack);
            long fil = low.slopeInt(pl, posL);
            long fih = high.slopeInt(ph, posH);
            checkRange(Math.subtractExact(t, xl), Math.subtractExact(boundary - 1, xl), fil, vl);
            checkRange(Math.subtractExact(xh - 1, t), Math.subtractExact(xh - 1, boundary - 1), fih, vh);
            run.xLow = xl;
            run.vLow = vl;
            run.intLow = fil;
            run.fracLow = low.slopeFrac(pl, posL);
            run.xHigh = xh - 1;
            run.vHigh = vh;
            run.intHigh = fih;
            run.fracHigh = high.slopeFrac(ph, posH);
        } catch (ArithmeticException beyond) {
            return false;
        }
        run.from = t;
        run.to = boundary;
        return true;
    }

    /**
     * Whether ticks from {@code first} to {@code last} lie where {@link #runAt} may find runs:
     * inside the calibrated span, after the second zero, in a domain whose data hold.
     */
    boolean runsCover(long first, long last) {
        return !contradicted && !windows.isEmpty() && first >= spanFrom && last < spanTo
                && (windows.size() < 2 || first >= windowStarts[1]);
    }

    /**
     * One run of the bulk conversion, kept by a thread's converter between chunks
     * ({@link #runAt}): ticks in {@code [from, to)} convert with its constants alone.
     */
    static final class Run {
        /** The stretch, {@code to} exclusive; empty when {@code from ≥ to}. */
        long from;
        long to;
        /** Search hints for the next {@link #runAt}: the last window and its envelope pieces. */
        int window;
        int lowPiece;
        int highPiece;
        private long xLow;
        private long vLow;
        private long intLow;
        private long fracLow;
        private long xHigh;
        private long vHigh;
        private long intHigh;
        private long fracHigh;

        /**
         * What {@link #convertSorted} gives for {@code ticks[from, to)}, all in the stretch: the
         * same sums, whose exactness {@link #runAt} checked at the stretch's ends.
         */
        void convert(long[] ticks, int from, int to, long[] lo, long[] hi) {
            fillLower(ticks, from, to, lo, xLow, vLow, intLow, fracLow);
            fillUpper(ticks, from, to, hi, xHigh, vHigh, intHigh, fracHigh);
        }
    }

    /**
     * Whether a run's sums stay exact: both ends of its offsets {@code d} (the offsets of a run
     * are monotone, so its ends bound them) within the range where {@code |d·fi| ≤ 2⁶¹}, and
     * {@code |d| ≤ 2⁶¹}, {@code |v| ≤ 2⁶¹}. Then {@code v + d·fi + high(d·ff) + (d or 0)} has
     * every partial sum below {@code 2⁶¹ + 2⁶¹ + 2⁶⁰ + 2⁶¹ < 2⁶³}.
     */
    private static void checkRange(long d1, long d2, long fi, long v) {
        long quarter = Long.MAX_VALUE / 4;
        long limit = fi == 0 ? quarter : quarter / Math.abs(fi);
        if (Math.abs(d1) > limit || Math.abs(d2) > limit || d1 == Long.MIN_VALUE || d2 == Long.MIN_VALUE
                || fi == Long.MIN_VALUE || v > quarter || v < -quarter) {
            throw new ArithmeticException("tick offset beyond the exact range");
        }
    }

    /**
     * The first index in {@code [from, n)} with {@code ticks[index] ≥ value} (ticks ascending), or
     * n. Every run boundary lies beyond the run's first tick, so a run always advances.
     */
    static int firstAtLeast(long[] ticks, int from, int n, long value) {
        if (from >= n || value == Long.MAX_VALUE && ticks[n - 1] < value) {
            return n;
        }
        int lo = from;
        int hi = n;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (ticks[mid] >= value) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        return lo;
    }

    /**
     * A cursor that converts this domain's positions in ascending order (any order works; sorted
     * is O(1) amortized).
     */
    Cursor cursor() {
        return new Cursor();
    }

    /** Sweep state: the current window and envelope pieces. */
    final class Cursor {
        DomainConversion conversion() {
            return DomainConversion.this;
        }

        private int window;
        private int lowPiece;
        private int highPiece;
        private int lowWindow = -1;
        private int highWindow = -1;
        /** Envelope pieces of the second window, for positions before it ({@link #convertSorted}). */
        private int lowPiece2;
        private int highPiece2;

        /**
         * ≤ the parent's continuous value at continuous position x, or MIN_VALUE where there is
         * no bound (contradicted data, beyond the horizon, or a sum beyond the range of a long).
         */
        long lowerAt(long x) {
            if (contradicted || windows.isEmpty() || beyondHorizon(x)) {
                return Long.MIN_VALUE;
            }
            window = windowFor(x, window);
            Window w = windows.get(window);
            if (lowWindow != window) {
                lowWindow = window;
                lowPiece = 0;
            }
            lowPiece = w.low.locate(x, lowPiece);
            long bound = lower(w, lowPiece, x);
            if (windows.size() > 1 && x < windowStarts[1]) {
                Window second = windows.get(1);
                lowPiece2 = second.low.locate(x, lowPiece2);
                bound = Math.max(bound, lower(second, lowPiece2, x));
            }
            return bound;
        }

        private long lower(Window w, int piece, long x) {
            long slack = w.slackFor(x);
            long value = w.low.evaluate(piece, x);
            if (slack == Window.NO_BOUND || value == Long.MIN_VALUE) {
                return Long.MIN_VALUE;
            }
            try {
                return Math.subtractExact(value, slack);
            } catch (ArithmeticException e) {
                return Long.MIN_VALUE;
            }
        }

        /** ≥ the parent's continuous value at continuous position x, or MAX_VALUE where there is no bound. */
        long upperAt(long x) {
            if (contradicted || windows.isEmpty() || beyondHorizon(x)) {
                return Long.MAX_VALUE;
            }
            window = windowFor(x, window);
            Window w = windows.get(window);
            if (highWindow != window) {
                highWindow = window;
                highPiece = 0;
            }
            highPiece = w.high.locate(x, highPiece);
            long bound = upper(w, highPiece, x);
            if (windows.size() > 1 && x < windowStarts[1]) {
                Window second = windows.get(1);
                highPiece2 = second.high.locate(x, highPiece2);
                bound = Math.min(bound, upper(second, highPiece2, x));
            }
            return bound;
        }

        private long upper(Window w, int piece, long x) {
            long slack = w.slackFor(x);
            long value = w.high.evaluate(piece, x);
            if (slack == Window.NO_BOUND || value == Long.MAX_VALUE) {
                return Long.MAX_VALUE;
            }
            try {
                return Math.addExact(value, slack);
            } catch (ArithmeticException e) {
                return Long.MAX_VALUE;
            }
        }
    }
}
