package dev.dprof.calibrator.estimate;

import dev.dprof.format.calibration.DomainCalibration;
import dev.dprof.format.calibration.Zero;
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
    private final BigFraction meanFrequencyLow;
    private final BigFraction meanFrequencyHigh;

    private DomainConversion(DomainCalibration calibration, DriftModel drift, List<Window> windows,
                             BigFraction meanLow, BigFraction meanHigh) {
        this.calibration = calibration;
        this.drift = drift;
        this.windows = windows;
        this.windowStarts = windows.stream().mapToLong(w -> w.from).toArray();
        this.meanFrequencyLow = meanLow;
        this.meanFrequencyHigh = meanHigh;
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
            return new DomainConversion(calibration, drift, List.of(), null, null);
        }
        Zero first = zeros.get(0);
        Zero last = zeros.get(zeros.size() - 1);
        BigFraction meanLow = null;
        BigFraction meanHigh = null;
        if (zeros.size() >= 2 && last.k1() - first.k2() - 1 > 0) {
            meanLow = BigFraction.of(last.a() - first.a() - 1).divide(last.k2() + 1 - first.k1());
            meanHigh = BigFraction.of(last.a() + 1 - first.a()).divide(last.k1() - first.k2() - 1);
        }
        List<Window> windows = new ArrayList<>();
        if (drift instanceof DriftModel.Constant || zeros.size() == 1) {
            List<LinePoint> points = new ArrayList<>(extra);
            zeros.forEach(z -> points.addAll(List.of(Constraints.of(z))));
            windows.add(new Window(Long.MIN_VALUE, Long.MAX_VALUE, points,
                    drift instanceof DriftModel.BoundedDrift b ? curvature(b, calibration, meanHigh, first, last) : 0));
        } else {
            double curvature = curvature((DriftModel.BoundedDrift) drift, calibration, meanHigh, first, last);
            List<LinePoint> sortedExtra = new ArrayList<>(extra);
            sortedExtra.sort(Comparator.comparingLong(LinePoint::x));
            for (int i = 0; i + 1 < zeros.size(); i++) {
                Zero left = zeros.get(i);
                Zero right = zeros.get(i + 1);
                long from = i == 0 ? Long.MIN_VALUE : left.k1();
                long to = i + 2 == zeros.size() ? Long.MAX_VALUE : right.k1();
                List<LinePoint> points = new ArrayList<>(List.of(Constraints.of(left)));
                points.addAll(List.of(Constraints.of(right)));
                for (LinePoint p : sortedExtra) {
                    if (p.x() >= left.k1() && p.x() <= right.k2() + 1) {
                        points.add(p);
                    }
                }
                windows.add(new Window(from, to, points, curvature));
            }
        }
        return new DomainConversion(calibration, drift, windows, meanLow, meanHigh);
    }

    /**
     * The bound on the conversion's curvature, in parent ticks per node tick²: {@code ρ·F/f}, with
     * {@code F} the largest the relative frequency can be anywhere within an hour of the zeros
     * (it drifts at most by {@code e^{ρ·T}} from its mean), {@code f} the node's nominal rate.
     */
    private static double curvature(DriftModel.BoundedDrift drift, DomainCalibration calibration,
                                    BigFraction meanHigh, Zero first, Zero last) {
        double rho = drift.ppmPerSecond() * 1e-6;
        double hz = calibration.nominalTickHz();
        double span = (last.k2() - first.k1()) / hz + 3600;
        double fMax = (meanHigh != null ? meanHigh.doubleValue() : FeasibleLines.F_MAX.doubleValue())
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

    /** Bounds on the mean relative frequency between the first and last zero; needs no assumption. */
    public BigFraction meanFrequencyLow() {
        return meanFrequencyLow;
    }

    public BigFraction meanFrequencyHigh() {
        return meanFrequencyHigh;
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
     * A cursor that converts this domain's positions in ascending order (any order works; sorted
     * is O(1) amortized).
     */
    Cursor cursor() {
        return new Cursor();
    }

    /** Sweep state: the current window and envelope pieces. */
    final class Cursor {
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
                return Math.subtractExact(w.low.evaluate(lowPiece, x), w.slack(x));
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
                return Math.addExact(w.high.evaluate(highPiece, x), w.slack(x));
            } catch (ArithmeticException e) {
                return Long.MAX_VALUE;
            }
        }
    }
}
