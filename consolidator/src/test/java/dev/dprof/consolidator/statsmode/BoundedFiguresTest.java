package dev.dprof.consolidator.statsmode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.consolidator.analysis.stats.Bound;
import dev.dprof.format.FormatException;
import dev.dprof.format.IntervalStatistics;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.HdrHistogram.Histogram;
import org.apache.commons.numbers.fraction.BigFraction;
import org.junit.jupiter.api.Test;

/** The bounds of statistics mode's figures, by hand and against exact values of random durations. */
class BoundedFiguresTest {

    private static IntervalStatistics.Figures figures(long... ticks) {
        Histogram h = new Histogram(2);
        long sum = 0;
        long positive = 0;
        long min = Long.MAX_VALUE;
        long max = 0;
        for (long t : ticks) {
            h.recordValue(t);
            sum += t;
            positive += t >= 1 ? 1 : 0;
            min = Math.min(min, t);
            max = Math.max(max, t);
        }
        ByteBuffer b = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
        int n = h.encodeIntoByteBuffer(b);
        byte[] bytes = new byte[n];
        System.arraycopy(b.array(), 0, bytes, 0, n);
        return new IntervalStatistics.Figures(ticks.length, positive, BigInteger.valueOf(sum), min, max,
                BigInteger.valueOf(ticks.length * 1024L), bytes);
    }

    private static TickFigures sum(IntervalStatistics.Figures... intervals) throws FormatException {
        TickFigures f = new TickFigures();
        for (IntervalStatistics.Figures i : intervals) {
            f.add(i);
        }
        return f;
    }

    @Test
    void byHandWithTwoProcessesAtDifferentRates() throws FormatException {
        // Process 0: ticks worth exactly 2; process 1: between 1 and 3.
        Scale scale = new Scale(new BigFraction[] {BigFraction.of(2), BigFraction.ONE},
                new BigFraction[] {BigFraction.of(2), BigFraction.of(3)});
        BoundedFigures f = BoundedFigures.of(Map.of(0, sum(figures(10, 0), figures(20)), 1, sum(figures(5))), scale);
        assertEquals(4, f.count());
        // Process 0: [(30 − 2)·2, (30 + 3)·2] = [56, 66]; process 1: [(5 − 1)·1, (5 + 1)·3] = [4, 18].
        assertEquals(new Bound(60, 84), f.total());
        assertEquals(new Bound(15, 21), f.mean());
        // The shortest: process 0's 0 ticks, [0, 2]; process 1's 5, [4, 18]: [min lo, min hi].
        assertEquals(new Bound(0, 2), f.min());
        // The longest: process 0's 20 ticks, [38, 42]; process 1's [4, 18].
        assertEquals(new Bound(38, 42), f.max());
        // The median (2nd smallest): lows 0, 4, 18, 38 → 4; highs 2, 18, 22, 42 → 18.
        assertEquals(new Bound(4, 18), f.quantiles().get(0).value());
        // One probe of 1 tick per instance taken off: 3 ticks of process 0 (6), 1 of process 1 ([1, 3]).
        assertEquals(new Bound(7, 9), f.probeCost());
        assertEquals(new Bound(51, 77), f.compensated());
    }

    @Test
    void quantileBoundsContainTheExactOnesWithinTheHistogramsError() throws FormatException {
        SplittableRandom random = new SplittableRandom(11);
        List<Long> all = new ArrayList<>();
        List<IntervalStatistics.Figures> intervals = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            long[] ticks = new long[5_000];
            for (int k = 0; k < ticks.length; k++) {
                ticks[k] = (long) Math.exp(random.nextDouble() * 16);
                all.add(ticks[k]);
            }
            intervals.add(figures(ticks));
        }
        all.sort(null);
        BoundedFigures f = BoundedFigures.of(Map.of(0, sum(intervals.toArray(IntervalStatistics.Figures[]::new))),
                Scale.point(new BigFraction[] {BigFraction.ONE}));
        assertEquals(all.size(), f.count());
        for (BoundedFigures.Quantile q : f.quantiles()) {
            long exact = all.get((int) Math.ceil(q.q() * all.size()) - 1);
            Bound b = q.value();
            assertTrue(b.contains(exact), q.q() + ": " + b + " does not contain " + exact);
            assertTrue(b.hi() - b.lo() <= BoundedFigures.HISTOGRAM_RELATIVE_ERROR * b.hi() + 2, q.q() + ": " + b);
        }
    }

    @Test
    void aHistogramThatDisagreesWithItsCountIsRefused() {
        IntervalStatistics.Figures f = figures(1, 2, 3);
        IntervalStatistics.Figures wrong = new IntervalStatistics.Figures(4, 3, f.ticks(), 1, 3, f.correctionX1024(),
                f.histogram());
        FormatException e = org.junit.jupiter.api.Assertions.assertThrows(FormatException.class, () -> sum(wrong));
        assertTrue(e.getMessage().contains("holds 3 durations, the record counts 4"), e.getMessage());
    }
}
