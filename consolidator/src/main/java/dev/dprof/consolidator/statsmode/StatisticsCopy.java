package dev.dprof.consolidator.statsmode;

import dev.dprof.consolidator.read.ProcessQueue;
import dev.dprof.consolidator.read.RecordVisitor;
import dev.dprof.format.ByteSink;
import dev.dprof.format.IntervalStatistics;
import dev.dprof.format.RegionInfo;
import dev.dprof.format.profile.StatisticsFile;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Consolidation's part of statistics mode: the {@code S} records of every process in statistics mode go
 * into the profile's {@code statistics.bin}, each interval's first and last tick converted to bounds on
 * the reference clock by the process's own conversion (the one its events would have had).
 */
public final class StatisticsCopy {
    /** One tick of the process's clock to {@code [lo, hi]} on the reference ({@code Long.MIN/MAX_VALUE}: none). */
    @FunctionalInterface
    public interface TickConversion {
        void convert(long tick, long[] loHi);
    }

    private final StatisticsFile.Writer writer = new StatisticsFile.Writer();
    private boolean any;

    /**
     * Copies the statistics of process {@code index} (label {@code label}) from {@code queue}, which lost
     * {@code lostEvents} events if it ended ({@code ended}).
     */
    public void add(int index, String label, ProcessQueue queue, TickConversion conversion, boolean ended,
                    long lostEvents) {
        any = true;
        writer.process(index, label, queue.header().nominalTickHz(), queue.header().probeCostTicksX1024());
        long[] first = new long[2];
        long[] last = new long[2];
        ByteSink bytes = new ByteSink(1 << 10);
        queue.read(new RecordVisitor() {
            @Override
            public void region(RegionInfo region) {
                writer.region(index, region.id(), region.name(), region.kind());
            }

            @Override
            public void statistics(IntervalStatistics s) {
                conversion.convert(s.firstTick(), first);
                conversion.convert(s.lastTick(), last);
                bytes.clear();
                s.encode(bytes);
                writer.interval(index, first[0], first[1], last[0], last[1], bytes.toByteArray());
            }
        });
        if (ended) {
            writer.end(index, lostEvents);
        }
    }

    /** Writes {@code statistics.bin} into the profile {@code dir}, if any process was in statistics mode. */
    public void write(Path dir) throws IOException {
        if (any) {
            writer.write(dir);
        }
    }
}
