package dev.dprof.consolidator.statsmode;

import dev.dprof.format.FormatException;
import dev.dprof.format.IntervalStatistics;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import org.HdrHistogram.Histogram;

/**
 * The durations of one region's instances (or of one caller's, id's, channel's share) in one process,
 * summed over intervals, in ticks of the process's clock: exact sums and a merged histogram.
 */
final class TickFigures {
    long count;
    long positive;
    BigInteger ticks = BigInteger.ZERO;
    long min = Long.MAX_VALUE;
    long max;
    BigInteger correctionX1024 = BigInteger.ZERO;
    /** Null until an interval with instances; the records' histograms added up (same precision, exact counts). */
    Histogram histogram;

    void add(IntervalStatistics.Figures f) throws FormatException {
        if (f.count() == 0) {
            return;
        }
        Histogram h;
        try {
            h = Histogram.decodeFromByteBuffer(ByteBuffer.wrap(f.histogram()), 0);
        } catch (RuntimeException e) {
            throw new FormatException("statistics histogram unreadable (" + e + ")");
        }
        if (h.getTotalCount() != f.count()) {
            throw new FormatException("statistics histogram holds " + h.getTotalCount() + " durations, the record counts "
                    + f.count());
        }
        count += f.count();
        positive += f.positive();
        ticks = ticks.add(f.ticks());
        min = Math.min(min, f.minTicks());
        max = Math.max(max, f.maxTicks());
        correctionX1024 = correctionX1024.add(f.correctionX1024());
        if (histogram == null) {
            histogram = new Histogram(h.getNumberOfSignificantValueDigits());
        }
        histogram.add(h);
    }
}
