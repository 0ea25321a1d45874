package dev.dprof.consolidator.analysis.stats;

import dev.dprof.format.profile.ProfileEvent;
import java.math.BigInteger;
import org.apache.commons.numbers.fraction.BigFraction;

/**
 * The instances of one region (or one caller → region pair), accumulated per process in that
 * process's own ticks, so that every figure is converted once, exactly, at the end: a total over
 * a process is {@code [(ΣΔk − #{Δk ≥ 1})·slopeLow, (ΣΔk + count)·slopeHigh]}, and the sum over processes of those exact
 * rationals is rounded outward once. Per instance the cost is a few long additions.
 *
 * <p>The probe-corrected duration of an instance is kept in 1/1024 of a tick (the unit the probe
 * cost is measured in): {@code max(0, 1024·Δk − (nested + 1)·cost×1024)}. An instance longer
 * than 2⁵³ ticks (over a month at 3 GHz) does not fit that unit; its corrected value is then
 * only a lower bound, and the upper bounds of the corrected minimum/maximum become infinite.
 */
final class DurationSums {
    private static final long MAX_SCALED = Long.MAX_VALUE / Rates.COST_SCALE;

    private final Part[] parts;
    long open;
    long outsideWindow;

    DurationSums(int processes) {
        parts = new Part[processes];
    }

    /** One process's share. */
    private static final class Part {
        long count;
        /** Instances with Δk ≥ 1: their lower bound drops a tick for the readings' quantisation. */
        long positive;
        final WideSum ticks = new WideSum();
        long minTicks = Long.MAX_VALUE;
        long maxTicks = Long.MIN_VALUE;
        /** The correction actually applied (after clamping at 0), in 1/1024 tick. */
        final WideSum applied = new WideSum();
        /** Corrected durations in 1/1024 tick; Long.MAX_VALUE stands for "too long to hold". */
        long minNet = Long.MAX_VALUE;
        long maxNet = Long.MIN_VALUE;
        long truthCount;
        final WideSum truth = new WideSum();
        long truthMin = Long.MAX_VALUE;
        long truthMax = Long.MIN_VALUE;
    }

    /**
     * Adds one instance.
     *
     * @param ticks     exit tick − enter tick, on the process's own clock (≥ 0)
     * @param nested    events recorded on the thread strictly between the enter and the exit
     * @param truth     the true duration in reference ticks, or {@link ProfileEvent#NO_TRUTH}
     */
    void add(int process, long ticks, long nested, long costX1024, long truth) {
        Part p = parts[process];
        if (p == null) {
            p = new Part();
            parts[process] = p;
        }
        p.count++;
        if (ticks >= 1) {
            p.positive++;
        }
        p.ticks.add(ticks);
        p.minTicks = Math.min(p.minTicks, ticks);
        p.maxTicks = Math.max(p.maxTicks, ticks);
        long scaled = ticks <= MAX_SCALED ? ticks * Rates.COST_SCALE : Long.MAX_VALUE;
        long full;
        try {
            full = Math.multiplyExact(Math.addExact(nested, 1), costX1024);
        } catch (ArithmeticException e) {
            full = Long.MAX_VALUE;
        }
        long applied = Math.min(scaled, full);
        p.applied.add(applied);
        long net = scaled == Long.MAX_VALUE ? Long.MAX_VALUE : scaled - applied;
        p.minNet = Math.min(p.minNet, net);
        p.maxNet = Math.max(p.maxNet, net);
        if (truth != ProfileEvent.NO_TRUTH) {
            p.truthCount++;
            p.truth.add(truth);
            p.truthMin = Math.min(p.truthMin, truth);
            p.truthMax = Math.max(p.truthMax, truth);
        }
    }

    long count() {
        long n = 0;
        for (Part p : parts) {
            n += p == null ? 0 : p.count;
        }
        return n;
    }

    /**
     * The measured durations: {@code [max(0, Δk − 1) · slopeLow, (Δk + 1) · slopeHigh]} per instance —
     * readings {@code k1, k2} stand for continuous clock values in {@code [k, k+1)}, so the
     * continuous span lies strictly within {@code Δk ± 1} ticks of the thread's clock.
     */
    Durations measured(Rates r) {
        long count = count();
        if (count == 0) {
            return Durations.NONE;
        }
        BigFraction totalLo = BigFraction.ZERO;
        BigFraction totalHi = BigFraction.ZERO;
        BigFraction minLo = null;
        BigFraction minHi = null;
        BigFraction maxLo = BigFraction.ZERO;
        BigFraction maxHi = BigFraction.ZERO;
        boolean seen = false;
        for (int i = 0; i < parts.length; i++) {
            Part p = parts[i];
            if (p == null) {
                continue;
            }
            BigInteger sum = p.ticks.value();
            totalLo = totalLo.add(Rates.times(sum.subtract(BigInteger.valueOf(p.positive)), r.low[i]));
            totalHi = Rates.plus(totalHi, Rates.times(sum.add(BigInteger.valueOf(p.count)), r.high[i]));
            BigFraction lo = Rates.times(Math.max(0, p.minTicks - 1), r.low[i]);
            BigFraction hi = Rates.times(p.minTicks + 1, r.high[i]);
            minLo = seen ? Rates.min(minLo, lo) : lo;
            minHi = seen ? Rates.min(minHi, hi) : hi;
            seen = true;
            maxLo = Rates.max(maxLo, Rates.times(Math.max(0, p.maxTicks - 1), r.low[i]));
            maxHi = Rates.max(maxHi, Rates.times(p.maxTicks + 1, r.high[i]));
        }
        return durations(count, totalLo, totalHi, minLo, minHi, maxLo, maxHi, BigFraction.ONE);
    }

    /** The durations less the probe cost, each clamped at 0 (see {@link ProfileStatistics}). */
    Durations corrected(Rates r) {
        long count = count();
        if (count == 0) {
            return Durations.NONE;
        }
        BigFraction totalLo = BigFraction.ZERO;
        BigFraction totalHi = BigFraction.ZERO;
        BigFraction minLo = null;
        BigFraction minHi = null;
        BigFraction maxLo = BigFraction.ZERO;
        BigFraction maxHi = BigFraction.ZERO;
        boolean seen = false;
        BigInteger scale = BigInteger.valueOf(Rates.COST_SCALE);
        for (int i = 0; i < parts.length; i++) {
            Part p = parts[i];
            if (p == null) {
                continue;
            }
            BigInteger net = p.ticks.value().multiply(scale).subtract(p.applied.value());
            totalLo = totalLo.add(Rates.times(net, r.low[i]));
            totalHi = Rates.plus(totalHi, Rates.times(net, r.high[i]));
            BigFraction lo = Rates.times(p.minNet, r.low[i]);
            BigFraction hi = p.minNet == Long.MAX_VALUE ? null : Rates.times(p.minNet, r.high[i]);
            minLo = seen ? Rates.min(minLo, lo) : lo;
            minHi = seen ? Rates.min(minHi, hi) : hi;
            seen = true;
            maxLo = Rates.max(maxLo, Rates.times(p.maxNet, r.low[i]));
            maxHi = Rates.max(maxHi, p.maxNet == Long.MAX_VALUE ? null : Rates.times(p.maxNet, r.high[i]));
        }
        return durations(count, totalLo, totalHi, minLo, minHi, maxLo, maxHi, BigFraction.of(Rates.COST_SCALE));
    }

    /** How much the correction took off the total, in reference ticks. */
    Bound correction(Rates r) {
        BigFraction[] c = correctionExact(r);
        return Rates.bound(c[0], c[1]);
    }

    /** The same, exact: {@code [lo, hi]}, hi null when unbounded. */
    BigFraction[] correctionExact(Rates r) {
        BigFraction lo = BigFraction.ZERO;
        BigFraction hi = BigFraction.ZERO;
        for (int i = 0; i < parts.length; i++) {
            Part p = parts[i];
            if (p != null) {
                BigInteger c = p.applied.value();
                lo = lo.add(Rates.times(c, r.low[i]));
                hi = Rates.plus(hi, Rates.times(c, r.high[i]));
            }
        }
        BigFraction scale = BigFraction.of(Rates.COST_SCALE);
        return new BigFraction[] {lo.divide(scale), hi == null ? null : hi.divide(scale)};
    }

    /** The truth figures, or null when the instances carry none. */
    TruthDurations truth() {
        long count = 0;
        BigInteger total = BigInteger.ZERO;
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (Part p : parts) {
            if (p != null && p.truthCount > 0) {
                count += p.truthCount;
                total = total.add(p.truth.value());
                min = Math.min(min, p.truthMin);
                max = Math.max(max, p.truthMax);
            }
        }
        if (count == 0) {
            return null;
        }
        return new TruthDurations(count, total.longValue(), total.doubleValue() / count, min, max);
    }

    /** The worst calibration quality among the processes contributing an instance. */
    String quality(Rates r) {
        String q = null;
        for (int i = 0; i < parts.length; i++) {
            if (parts[i] != null) {
                q = Rates.worse(q, r.quality[i]);
            }
        }
        return q;
    }

    boolean contributes(int process) {
        return parts[process] != null;
    }

    private static Durations durations(long count, BigFraction totalLo, BigFraction totalHi, BigFraction minLo,
                                       BigFraction minHi, BigFraction maxLo, BigFraction maxHi, BigFraction unit) {
        BigFraction n = BigFraction.of(count).multiply(unit);
        return new Durations(count,
                Rates.bound(totalLo.divide(unit), totalHi == null ? null : totalHi.divide(unit)),
                Rates.bound(totalLo.divide(n), totalHi == null ? null : totalHi.divide(n)),
                Rates.bound(minLo.divide(unit), minHi == null ? null : minHi.divide(unit)),
                Rates.bound(maxLo.divide(unit), maxHi == null ? null : maxHi.divide(unit)));
    }
}
