package dev.dprof.consolidator.consolidate;

import dev.dprof.calibrator.estimate.CalibrationSet;
import dev.dprof.calibrator.estimate.DriftModels;
import dev.dprof.format.calibration.DomainCalibration;
import dev.dprof.format.calibration.Zero;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@link Consolidator#run} for the consolidation benchmark, through its package-private seam: the
 * product's pipeline (inventory, causal index, per-thread streams, causal merge, events.bin,
 * profile.json) with the tick conversion chosen by {@code mode}, and each phase's wall time:
 * <ul>
 * <li>{@code sound}: exactly the product's — calibration polygons tightened by the matched messages
 * ({@link MessageConstraints}), bulk sound conversion ({@link TickConverter#convertSorted}). Its time
 * is checked against {@link Consolidator#run} on the same trace, to show the copy is faithful.</li>
 * <li>{@code point}: what a non-sound tool would do — no polygons, no message constraints: a
 * least-squares line {@code a + b·k} through each domain's zero midpoints, {@code lo = hi}.</li>
 * </ul>
 * Both run the product's pipeline; only the conversion differs, through {@link TickBounds}.
 */
public final class ConversionVariants {
    /**
     * Wall nanoseconds per phase of the last {@link #run} in this JVM, in order (for the benchmark's
     * report; wall time, because the consolidation runs parts of its work on several threads).
     */
    public static final Map<String, Long> PHASES = new LinkedHashMap<>();

    private ConversionVariants() {
    }

    /** Consolidates {@code runs} with the given conversion mode; returns the events written. */
    public static long run(Path runs, Path calibrationDir, Path out, String mode, String drift)
            throws ConsolidationException, IOException {
        TickBounds.Factory conversion = switch (mode) {
            case "sound" -> (calibration, domain) -> TickBounds.sound(calibration.converter(domain));
            case "point" -> new TickBounds.Factory() {
                @Override
                public TickBounds forDomain(CalibrationSet calibration, String domain) {
                    return pointConversion(leastSquares(calibration.domains().stream()
                            .filter(d -> d.domainId().equals(domain)).findFirst().map(DomainCalibration::zeros)
                            .orElse(List.of())));
                }

                @Override
                public boolean usesMessageConstraints() {
                    return false;
                }
            };
            default -> throw new IllegalArgumentException("mode sound|point, not " + mode);
        };
        PHASES.clear();
        long[] last = {System.nanoTime()};
        return Consolidator.run(new Consolidator.Options(List.of(runs), List.of(calibrationDir), out,
                Consolidator.Sync.FREEZER, DriftModels.parse(drift), Optional.empty()), n -> { }, conversion, phase -> {
                    long now = System.nanoTime();
                    PHASES.merge(phase, now - last[0], Long::sum);
                    last[0] = now;
                }).events();
    }

    /** {@code lo = hi = y0 + round((k − x0)·b)}: a point, and no claim. */
    static TickBounds pointConversion(double[] line) {
        long x0 = (long) line[0];
        long y0 = (long) line[1];
        double b = line[2];
        return (ticks, n, sorted, lo, hi) -> {
            for (int k = 0; k < n; k++) {
                long v = y0 + Math.round((ticks[k] - x0) * b);
                lo[k] = v;
                hi[k] = v;
            }
        };
    }

    /** {x0, y0, slope}: the least-squares line through the zeros' midpoints ((k1 + k2)/2, a). */
    static double[] leastSquares(List<Zero> zeros) {
        if (zeros.isEmpty()) {
            throw new IllegalArgumentException("a domain without zeros");
        }
        long x0 = zeros.get(0).k1();
        long y0 = zeros.get(0).a();
        double sx = 0;
        double sy = 0;
        for (Zero z : zeros) {
            sx += (z.k1() - x0) + (z.k2() - z.k1()) / 2.0;
            sy += z.a() - y0;
        }
        int n = zeros.size();
        double mx = sx / n;
        double my = sy / n;
        double sxx = 0;
        double sxy = 0;
        for (Zero z : zeros) {
            double dx = (z.k1() - x0) + (z.k2() - z.k1()) / 2.0 - mx;
            sxx += dx * dx;
            sxy += dx * (z.a() - y0 - my);
        }
        double slope = n == 1 || sxx == 0 ? 1 : sxy / sxx;
        return new double[] {x0 + mx, y0 + my, slope};
    }
}
