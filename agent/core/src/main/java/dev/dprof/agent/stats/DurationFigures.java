package dev.dprof.agent.stats;

import dev.dprof.format.ByteSink;
import dev.dprof.format.IntervalStatistics;
import java.nio.ByteBuffer;
import org.HdrHistogram.Histogram;

/**
 * The durations of a set of instances over one interval, in ticks of the process's clock: count,
 * the instances of at least one tick, the sum (128 bits, unsigned), minimum, maximum, the probe cost
 * taken off (in 1/1024 tick), and a histogram of bounded relative error (Tene's HdrHistogram).
 *
 * <h2>Implementation notes</h2>
 * {@link #add} is on the drainer's path: a few long operations and {@link Histogram#recordValue},
 * which allocates nothing unless a duration beyond every earlier one makes the histogram grow (it
 * resizes itself; in a steady state it has its size). The histogram is made at the first instance,
 * so a caller, instance or peer slot that never times anything costs no histogram.
 */
final class DurationFigures {
    /**
     * Significant decimal digits of the histogram: a recorded value is known to within 1% (each bucket
     * spans at most 1/128 of its lowest value), which bounds the quantiles docs/FORMAT.md states.
     */
    static final int SIGNIFICANT_DIGITS = 2;

    private long count;
    private long positive;
    private long ticksHigh;
    private long ticksLow;
    private long min = Long.MAX_VALUE;
    private long max;
    private long correctionHigh;
    private long correctionLow;
    private Histogram histogram;

    /** One instance of {@code ticks} (≥ 0) ticks, of which {@code correctionX1024}/1024 were the probes'. */
    void add(long ticks, long correctionX1024) {
        count++;
        if (ticks >= 1) {
            positive++;
        }
        long low = ticksLow + ticks;
        if (Long.compareUnsigned(low, ticksLow) < 0) {
            ticksHigh++;
        }
        ticksLow = low;
        long c = correctionLow + correctionX1024;
        if (Long.compareUnsigned(c, correctionLow) < 0) {
            correctionHigh++;
        }
        correctionLow = c;
        min = Math.min(min, ticks);
        max = Math.max(max, ticks);
        if (histogram == null) {
            histogram = new Histogram(SIGNIFICANT_DIGITS);
        }
        histogram.recordValue(ticks);
    }

    long count() {
        return count;
    }

    /** Writes the figures block; {@code scratch} holds the histogram's encoding on the way (grown if short). */
    ByteBuffer write(ByteSink out, ByteBuffer scratch) {
        if (count == 0) {
            IntervalStatistics.writeFigures(out, 0, 0, 0, 0, 0, 0, 0, 0, null, 0);
            return scratch;
        }
        int needed = histogram.getNeededByteBufferCapacity();
        ByteBuffer b = scratch.capacity() >= needed ? scratch : ByteBuffer.allocate(Math.max(needed, 2 * scratch.capacity()));
        b.clear();
        int length = histogram.encodeIntoByteBuffer(b);
        IntervalStatistics.writeFigures(out, count, positive, ticksHigh, ticksLow, min, max, correctionHigh,
                correctionLow, b.array(), length);
        return b;
    }

    /** Empties the figures for the next interval; the histogram keeps its size. */
    void reset() {
        count = 0;
        positive = 0;
        ticksHigh = 0;
        ticksLow = 0;
        min = Long.MAX_VALUE;
        max = 0;
        correctionHigh = 0;
        correctionLow = 0;
        if (histogram != null) {
            histogram.reset();
        }
    }
}
