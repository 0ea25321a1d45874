package dev.dprof.calibrator.estimate;

import dev.dprof.format.calibration.DomainCalibration;
import dev.dprof.format.calibration.Zero;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
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
    private final DomainCalibration calibration;
    private final DriftModel drift;
    private final List<Window> windows;
    private final long[] windowStarts;
    /** {@code {lowNum, lowDen, highNum, highDen}} of the mean-frequency bounds, or null. */
    private final long[] meanFrequency;

    private DomainConversion(DomainCalibration calibration, DriftModel drift, List<Window> windows,
                             long[] meanFrequency) {
        this.calibration = calibration;
        this.drift = drift;
        this.windows = windows;
        this.windowStarts = windows.stream().mapToLong(w -> w.from).toArray();
        this.meanFrequency = meanFrequency;
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
            return new DomainConversion(calibration, drift, List.of(), null);
        }
        Zero first = zeros.get(0);
        Zero last = zeros.get(zeros.size() - 1);
        long[] mean = meanFrequency(zeros);
        double meanHigh = mean == null ? Double.NaN : ratio(mean[2], mean[3]);
        List<Window> windows = new ArrayList<>();
        if (drift instanceof DriftModel.Constant || zeros.size() == 1) {
            List<LinePoint> points = new ArrayList<>(extra);
            zeros.forEach(z -> points.addAll(List.of(Constraints.of(z))));
            windows.add(new Window(Long.MIN_VALUE, Long.MAX_VALUE, points,
                    drift instanceof DriftModel.BoundedDrift b ? curvature(b, calibration, meanHigh, first, last) : 0));
        } else {
            double curvature = curvature((DriftModel.BoundedDrift) drift, calibration, meanHigh, first, last);
            for (int i = 0; i + 1 < zeros.size(); i++) {
                Zero left = zeros.get(i);
                Zero right = zeros.get(i + 1);
                long from = i == 0 ? Long.MIN_VALUE : left.k1();
                long to = i + 2 == zeros.size() ? Long.MAX_VALUE : right.k1();
                List<LinePoint> points = new ArrayList<>(List.of(Constraints.of(left)));
                points.addAll(List.of(Constraints.of(right)));
                // In any order: a window sorts its points itself (PointHull).
                for (LinePoint p : extra) {
                    if (p.x() >= left.k1() && p.x() <= right.k2() + 1) {
                        points.add(p);
                    }
                }
                windows.add(new Window(from, to, points, curvature));
            }
        }
        return new DomainConversion(calibration, drift, windows, mean);
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
                if (b.k1() - a.k2() - 1 <= 0) {
                    continue;
                }
                long[] bounds = {b.a() - a.a() - 1, b.k2() + 1 - a.k1(), b.a() + 1 - a.a(), b.k1() - a.k2() - 1};
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
     * {@code F} the largest the relative frequency can be anywhere within an hour of the zeros
     * (it drifts at most by {@code e^{ρ·T}} from its mean), {@code f} the node's nominal rate.
     */
    private static double curvature(DriftModel.BoundedDrift drift, DomainCalibration calibration,
                                    double meanHigh, Zero first, Zero last) {
        double rho = drift.ppmPerSecond() * 1e-6;
        double hz = calibration.nominalTickHz();
        double span = (last.k2() - first.k1()) / hz + 3600;
        double fMax = (!Double.isNaN(meanHigh) ? meanHigh : FeasibleLines.F_MAX.doubleValue())
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
        if (windows.isEmpty()) {
            return Quality.ABSENT;
        }
        long contradicted = windows.stream().filter(Window::contradicted).count();
        if (contradicted == windows.size()) {
            return Quality.CONTRADICTED;
        }
        if (contradicted > 0) {
            return Quality.PARTIAL;
        }
        return calibration.zeros().size() == 1 ? Quality.SINGLE_ZERO : Quality.BOUNDED;
    }

    /** Stretches {@code [from, to)} of node ticks whose data contradict the drift assumption. */
    public List<long[]> contradictedStretches() {
        return windows.stream().filter(Window::contradicted).map(w -> new long[] {w.from, w.to}).toList();
    }

    public int windowCount() {
        return windows.size();
    }

    /**
     * Bounds on the relative frequency at any point the windows serve, under the drift
     * assumption: a duration of {@code Δk} node ticks lasts between {@code Δk·lo} and
     * {@code Δk·hi} parent ticks. Null when a stretch contradicts the assumption.
     */
    public BigFraction[] slopeBounds() {
        BigFraction lo = null;
        BigFraction hi = null;
        for (Window w : windows) {
            if (w.contradicted()) {
                return null;
            }
            BigFraction[] b = w.slopeBounds();
            lo = lo == null || b[0].compareTo(lo) < 0 ? b[0] : lo;
            hi = hi == null || b[1].compareTo(hi) > 0 ? b[1] : hi;
        }
        return lo == null ? null : new BigFraction[] {lo, hi};
    }

    /** Bounds on the mean relative frequency between two zeros near the run's ends; needs no assumption. */
    public BigFraction meanFrequencyLow() {
        return meanFrequency == null ? null : BigFraction.of(meanFrequency[0], meanFrequency[1]);
    }

    public BigFraction meanFrequencyHigh() {
        return meanFrequency == null ? null : BigFraction.of(meanFrequency[2], meanFrequency[3]);
    }

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

    boolean isEmpty() {
        return windows.isEmpty();
    }

    /**
     * Converts ascending ticks in bulk: {@code lo[i] ≤ L(ticks[i])} and
     * {@code hi[i] ≥ U(ticks[i] + 1)}, the parent-continuous bounds of each reading;
     * {@code Long.MIN_VALUE}/{@code MAX_VALUE} where a stretch contradicts the assumption.
     *
     * <p>Implementation notes: the ticks are cut into runs over which everything is constant —
     * window, envelope pieces, the sign of the offset from each anchor (which picks the slope's
     * rounding), the drift slack bucket — found by binary search, so the inner loop is a counted
     * loop of two subtractions, two 64×64 multiplies and two high multiplies per tick, which the
     * JIT unrolls.
     *
     * @return how many ticks fell where a stretch contradicts the assumption (and got no bound)
     * @throws ArithmeticException if a product could overflow (ticks beyond ±2⁶² of the zeros)
     */
    int convertSorted(long[] ticks, int n, long[] lo, long[] hi) {
        int unbounded = 0;
        int w = windowFor(ticks[0], 0);
        int pl = 0;
        int ph = 0;
        int lastWindow = -1;
        int i = 0;
        while (i < n) {
            long t = ticks[i];
            while (w + 1 < windows.size() && t >= windowStarts[w + 1]) {
                w++;
            }
            Window win = windows.get(w);
            long end = w + 1 < windows.size() ? windowStarts[w + 1] : Long.MAX_VALUE;
            if (win.contradicted()) {
                int j = firstAtLeast(ticks, i, n, end);
                java.util.Arrays.fill(lo, i, j, Long.MIN_VALUE);
                java.util.Arrays.fill(hi, i, j, Long.MAX_VALUE);
                unbounded += j - i;
                i = j;
                continue;
            }
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
            long boundary = Math.min(end, Math.min(low.nextStart(pl), high.nextStart(ph) - 1));
            boundary = Math.min(boundary, win.nextSlackChange(t));
            if (!posL) {
                boundary = Math.min(boundary, xl);
            }
            if (!posH) {
                boundary = Math.min(boundary, xh - 1);
            }
            int j = firstAtLeast(ticks, i, n, boundary);
            long slack = win.slackFor(t);
            runLower(ticks, i, j, lo, xl, low.value(pl) - slack, low.slopeInt(pl, posL), low.slopeFrac(pl, posL));
            runUpper(ticks, i, j, hi, xh - 1, high.value(ph) + slack, high.slopeInt(ph, posH),
                    high.slopeFrac(ph, posH));
            i = j;
        }
        return unbounded;
    }

    /** {@code out[k] = v + floor((ticks[k] − x0)·F)} over a run. */
    private static void runLower(long[] ticks, int from, int to, long[] out, long x0, long v, long fi, long ff) {
        checkRange(ticks[from] - x0, ticks[to - 1] - x0, fi);
        long correction = ff >> 63;
        for (int k = from; k < to; k++) {
            long d = ticks[k] - x0;
            out[k] = v + d * fi + Math.multiplyHigh(d, ff) + (correction & d);
        }
    }

    /** {@code out[k] = v + ceil((ticks[k] − x0)·F) = v − floor((x0 − ticks[k])·F)} over a run. */
    private static void runUpper(long[] ticks, int from, int to, long[] out, long x0, long v, long fi, long ff) {
        checkRange(x0 - ticks[from], x0 - ticks[to - 1], fi);
        long correction = ff >> 63;
        for (int k = from; k < to; k++) {
            long d = x0 - ticks[k];
            out[k] = v - (d * fi + Math.multiplyHigh(d, ff) + (correction & d));
        }
    }

    /** Both ends of a run's offsets within the range where {@code d·fi} cannot overflow. */
    private static void checkRange(long d1, long d2, long fi) {
        long limit = fi == 0 ? Long.MAX_VALUE / 4 : (Long.MAX_VALUE / 4) / Math.abs(fi);
        if (Math.abs(d1) > limit || Math.abs(d2) > limit || d1 == Long.MIN_VALUE || d2 == Long.MIN_VALUE) {
            throw new ArithmeticException("tick offset beyond the exact range");
        }
    }

    /** The first index in [from, n) with ticks[index] ≥ value (ticks ascending), or n. */
    private static int firstAtLeast(long[] ticks, int from, int n, long value) {
        if (value == Long.MAX_VALUE || ticks[n - 1] < value) {
            return n;
        }
        int lo = from + 1;
        int hi = n - 1;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (ticks[mid] >= value) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        return Math.max(lo, from + 1);
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

        /** ≤ the parent's continuous value at continuous position x, or MIN_VALUE where unbounded. */
        long lowerAt(long x) {
            window = windowFor(x, window);
            Window w = windows.get(window);
            if (w.contradicted()) {
                return Long.MIN_VALUE;
            }
            if (lowWindow != window) {
                lowWindow = window;
                lowPiece = 0;
            }
            lowPiece = w.low.locate(x, lowPiece);
            try {
                return Math.subtractExact(w.low.evaluate(lowPiece, x), w.slackFor(x));
            } catch (ArithmeticException e) {
                return Long.MIN_VALUE;
            }
        }

        /** ≥ the parent's continuous value at continuous position x, or MAX_VALUE where unbounded. */
        long upperAt(long x) {
            window = windowFor(x, window);
            Window w = windows.get(window);
            if (w.contradicted()) {
                return Long.MAX_VALUE;
            }
            if (highWindow != window) {
                highWindow = window;
                highPiece = 0;
            }
            highPiece = w.high.locate(x, highPiece);
            try {
                return Math.addExact(w.high.evaluate(highPiece, x), w.slackFor(x));
            } catch (ArithmeticException e) {
                return Long.MAX_VALUE;
            }
        }
    }
}
