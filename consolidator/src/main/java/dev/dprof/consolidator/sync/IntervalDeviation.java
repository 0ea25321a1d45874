package dev.dprof.consolidator.sync;

import java.util.Arrays;

/**
 * How a correction changed process-local timings, as Becker et al. §6.2 measure it: the event
 * position (time since the thread's first event) and the event distance (time since the previous
 * event), original against corrected. Distances: the weighted mean relative deviation
 * {@code Σ|Δt| / Σ|t|}, and for each threshold the share of intervals whose relative deviation
 * exceeds it and the share of time they take.
 *
 * @param thresholds         relative deviations (0.001 = 0.1%)
 * @param intervalsAbove     per threshold, the share of intervals above it
 * @param timeAbove          per threshold, the share of the summed interval time above it
 */
public record IntervalDeviation(long intervals, double positionMaxRelative, double positionMaxAbsoluteTicks,
                                double distanceWeightedMean, double[] thresholds, double[] intervalsAbove,
                                double[] timeAbove) {
    static final double[] THRESHOLDS = {0, 0.001, 0.01, 0.1, 1};

    /** Collects one thread at a time, events in order. */
    static final class Builder {
        private double[] first = new double[16];
        private double[] firstCorrected = new double[16];
        private double[] prev = new double[16];
        private double[] prevCorrected = new double[16];
        private boolean[] seen = new boolean[16];
        private long intervals;
        private double positionMaxRelative;
        private double positionMaxAbsolute;
        private double sumDeviation;
        private double sumLength;
        private final long[] above = new long[THRESHOLDS.length];
        private final double[] timeAbove = new double[THRESHOLDS.length];

        void add(int stream, double original, double corrected) {
            if (stream >= seen.length) {
                int n = Math.max(stream + 1, seen.length * 2);
                first = Arrays.copyOf(first, n);
                firstCorrected = Arrays.copyOf(firstCorrected, n);
                prev = Arrays.copyOf(prev, n);
                prevCorrected = Arrays.copyOf(prevCorrected, n);
                seen = Arrays.copyOf(seen, n);
            }
            if (!seen[stream]) {
                seen[stream] = true;
                first[stream] = original;
                firstCorrected[stream] = corrected;
            } else {
                double position = original - first[stream];
                double positionDeviation = Math.abs((corrected - firstCorrected[stream]) - position);
                positionMaxAbsolute = Math.max(positionMaxAbsolute, positionDeviation);
                if (position > 0) {
                    positionMaxRelative = Math.max(positionMaxRelative, positionDeviation / position);
                }
                double distance = original - prev[stream];
                double deviation = Math.abs((corrected - prevCorrected[stream]) - distance);
                intervals++;
                sumDeviation += deviation;
                sumLength += Math.abs(distance);
                double relative = distance > 0 ? deviation / distance : deviation > 0 ? Double.POSITIVE_INFINITY : 0;
                for (int i = 0; i < THRESHOLDS.length; i++) {
                    if (relative > THRESHOLDS[i]) {
                        above[i]++;
                        timeAbove[i] += Math.abs(distance);
                    }
                }
            }
            prev[stream] = original;
            prevCorrected[stream] = corrected;
        }

        IntervalDeviation build() {
            double[] intervalShare = new double[THRESHOLDS.length];
            double[] timeShare = new double[THRESHOLDS.length];
            for (int i = 0; i < THRESHOLDS.length; i++) {
                intervalShare[i] = intervals == 0 ? 0 : above[i] / (double) intervals;
                timeShare[i] = sumLength == 0 ? 0 : timeAbove[i] / sumLength;
            }
            return new IntervalDeviation(intervals, positionMaxRelative, positionMaxAbsolute,
                    sumLength == 0 ? 0 : sumDeviation / sumLength, THRESHOLDS.clone(), intervalShare, timeShare);
        }
    }
}
