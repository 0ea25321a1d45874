package dev.dprof.consolidator.consolidate;

import dev.dprof.calibrator.estimate.CalibrationException;
import dev.dprof.calibrator.estimate.CalibrationSet;
import dev.dprof.calibrator.estimate.TickConverter;

/**
 * How one thread's ticks become reference intervals, a batch at a time: the consolidator's one
 * seam for the conversion. The product converts soundly ({@link #sound}); other synchronization
 * methods (and the benchmark's point baseline) plug in here without a copy of the pipeline.
 */
interface TickBounds {
    /** Converts {@code ticks[0..n)} ({@code sorted}: ascending); MIN/MAX where no bound exists. */
    void convert(long[] ticks, int n, boolean sorted, long[] lo, long[] hi);

    /**
     * The converter with its counts (ticks outside the calibrated span, without a bound, the first
     * and last bounded tick), or null for a conversion that keeps none.
     */
    default TickConverter counts() {
        return null;
    }

    /** Chooses the conversion of each clock domain. */
    interface Factory {
        TickBounds forDomain(CalibrationSet calibration, String domainId) throws CalibrationException;

        /**
         * Whether the conversion rests on the calibration tightened by the run's matched messages
         * (FreeZer's does); a conversion that ignores them must not be charged for computing them.
         */
        default boolean usesMessageConstraints() {
            return true;
        }
    }

    /** FreeZer: sound intervals, in bulk when the ticks are ascending. */
    static TickBounds sound(TickConverter converter) {
        return new TickBounds() {
            @Override
            public void convert(long[] ticks, int n, boolean sorted, long[] lo, long[] hi) {
                if (sorted) {
                    converter.convertSorted(ticks, n, lo, hi);
                } else {
                    for (int k = 0; k < n; k++) {
                        boolean ok = converter.convert(ticks[k]);
                        lo[k] = ok ? converter.lo() : Long.MIN_VALUE;
                        hi[k] = ok ? converter.hi() : Long.MAX_VALUE;
                    }
                }
            }

            @Override
            public TickConverter counts() {
                return converter;
            }
        };
    }
}
