package dev.dprof.consolidator.statsmode;

import dev.dprof.consolidator.analysis.stats.Bound;
import dev.dprof.consolidator.analysis.stats.Rates;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.HistogramIterationValue;
import org.apache.commons.numbers.fraction.BigFraction;

/**
 * A set of instances' durations over a run as bounds: the count exactly, total, mean, minimum, maximum
 * and quantiles each as an interval that contains the true value, from per-process tick figures and
 * each process's {@link Scale}.
 *
 * <p>An instance of {@code Δk} ticks lasted {@code [max(0, Δk − 1)·low, (Δk + 1)·high]} (the readings'
 * quantisation, docs/BOUNDS.md "Durations"). A quantile comes from the histograms: the instances of a
 * bucket lasted between its lowest and highest equivalent value (HdrHistogram's, a bucket spanning at
 * most 1/128 of its lowest value with 2 significant digits), so each instance's duration lies in a
 * known interval {@code [l_i, h_i]}; the k-th smallest duration then lies between the k-th smallest
 * {@code l_i} and the k-th smallest {@code h_i} (order statistics are monotone in every value), whatever
 * process each came from.
 *
 * @param probeCost   the probe cost taken off (the paper's intrusion, an estimate), as a bound of its own
 * @param compensated the total less that cost: an estimate, beside the bounds, never inside them
 */
public record BoundedFigures(long count, Bound total, Bound mean, Bound min, Bound max, List<Quantile> quantiles,
                             Bound probeCost, Bound compensated) {
    /** The quantiles every figure gives. */
    public static final double[] QUANTILES = {0.5, 0.9, 0.99, 0.999};
    /** The widest relative span of one histogram bucket (2 significant digits: 1/128). */
    public static final double HISTOGRAM_RELATIVE_ERROR = 1.0 / 128;
    public static final BoundedFigures NONE = new BoundedFigures(0, Bound.ZERO, Bound.ZERO, Bound.ZERO, Bound.ZERO,
            List.of(), Bound.ZERO, Bound.ZERO);

    /** The {@code q}-quantile (the ⌈q·n⌉-th smallest duration) lies in {@code value}. */
    public record Quantile(double q, Bound value) {
    }

    static BoundedFigures of(Map<Integer, TickFigures> parts, Scale scale) {
        long count = 0;
        BigFraction totalLo = BigFraction.ZERO;
        BigFraction totalHi = BigFraction.ZERO;
        BigFraction minLo = null;
        BigFraction minHi = null;
        BigFraction maxLo = BigFraction.ZERO;
        BigFraction maxHi = BigFraction.ZERO;
        BigFraction costLo = BigFraction.ZERO;
        BigFraction costHi = BigFraction.ZERO;
        boolean seen = false;
        List<long[]> lows = new ArrayList<>();
        List<double[]> buckets = new ArrayList<>();
        for (Map.Entry<Integer, TickFigures> e : parts.entrySet()) {
            int p = e.getKey();
            TickFigures f = e.getValue();
            if (f.count == 0) {
                continue;
            }
            count += f.count;
            totalLo = totalLo.add(scale.lo(p, f.ticks.subtract(BigInteger.valueOf(f.positive))));
            totalHi = plus(totalHi, scale.hi(p, f.ticks.add(BigInteger.valueOf(f.count))));
            BigFraction lo = scale.lo(p, BigInteger.valueOf(f.min - 1));
            BigFraction hi = scale.hi(p, BigInteger.valueOf(f.min).add(BigInteger.ONE));
            minLo = seen ? min(minLo, lo) : lo;
            minHi = seen ? min(minHi, hi) : hi;
            seen = true;
            maxLo = max(maxLo, scale.lo(p, BigInteger.valueOf(f.max - 1)));
            maxHi = max(maxHi, scale.hi(p, BigInteger.valueOf(f.max).add(BigInteger.ONE)));
            costLo = costLo.add(scale.lo(p, BigInteger.ONE).multiply(BigFraction.of(f.correctionX1024, BigInteger.valueOf(1024))));
            BigFraction perTickHi = scale.hi(p, BigInteger.ONE);
            costHi = f.correctionX1024.signum() == 0 ? costHi : perTickHi == null ? null
                    : plus(costHi, perTickHi.multiply(BigFraction.of(f.correctionX1024, BigInteger.valueOf(1024))));
            for (HistogramIterationValue v : f.histogram.recordedValues()) {
                long value = v.getValueIteratedTo();
                long lowest = f.histogram.lowestEquivalentValue(value);
                long highest = f.histogram.highestEquivalentValue(value);
                BigFraction l = scale.lo(p, BigInteger.valueOf(lowest - 1));
                BigFraction h = scale.hi(p, BigInteger.valueOf(highest).add(BigInteger.ONE));
                buckets.add(new double[] {v.getCountAtValueIteratedTo(), Rates.down(l), Rates.up(h)});
            }
        }
        if (count == 0) {
            return NONE;
        }
        List<Quantile> quantiles = new ArrayList<>();
        List<double[]> byLow = new ArrayList<>(buckets);
        byLow.sort(Comparator.comparingDouble(b -> b[1]));
        List<double[]> byHigh = new ArrayList<>(buckets);
        byHigh.sort(Comparator.comparingDouble(b -> b[2]));
        for (double q : QUANTILES) {
            long k = Math.max(1, (long) Math.ceil(q * count));
            quantiles.add(new Quantile(q, new Bound(kth(byLow, k, 1), kth(byHigh, k, 2))));
        }
        BigFraction n = BigFraction.of(count);
        Bound total = new Bound(Rates.down(totalLo), Rates.up(totalHi));
        BigFraction compLo = costHi == null ? BigFraction.ZERO : totalLo.subtract(costHi);
        BigFraction compHi = totalHi == null ? null : totalHi.subtract(costLo);
        return new BoundedFigures(count, total,
                new Bound(Rates.down(totalLo.divide(n)), Rates.up(totalHi == null ? null : totalHi.divide(n))),
                new Bound(Rates.down(minLo), Rates.up(minHi)), new Bound(Rates.down(maxLo), Rates.up(maxHi)),
                quantiles, new Bound(Rates.down(costLo), Rates.up(costHi)),
                new Bound(Math.max(0, Rates.down(compLo.signum() < 0 ? BigFraction.ZERO : compLo)), Rates.up(compHi)));
    }

    /** The k-th smallest (1-based) of the buckets' column {@code at}, each bucket weighing its count. */
    private static double kth(List<double[]> sorted, long k, int at) {
        long seen = 0;
        for (double[] b : sorted) {
            seen += (long) b[0];
            if (seen >= k) {
                return b[at];
            }
        }
        return sorted.get(sorted.size() - 1)[at];
    }

    private static BigFraction plus(BigFraction a, BigFraction b) {
        return a == null || b == null ? null : a.add(b);
    }

    private static BigFraction min(BigFraction a, BigFraction b) {
        if (a == null) {
            return b;
        }
        return b == null || a.compareTo(b) <= 0 ? a : b;
    }

    private static BigFraction max(BigFraction a, BigFraction b) {
        return a == null || b == null ? null : a.compareTo(b) >= 0 ? a : b;
    }
}
