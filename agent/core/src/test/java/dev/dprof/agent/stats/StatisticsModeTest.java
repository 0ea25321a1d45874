package dev.dprof.agent.stats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.format.ByteSink;
import dev.dprof.format.ByteSource;
import dev.dprof.format.EventCodes;
import dev.dprof.format.FormatException;
import dev.dprof.format.RecordType;
import dev.dprof.format.TraceWindow;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** When statistics mode writes its records and opens and closes its trace windows, on a clock the test sets. */
class StatisticsModeTest {
    private static final long MS = 1_000_000L;

    private static final class Records implements RecordOut {
        final ByteSink sink = new ByteSink(256);
        final List<byte[]> bytes = new ArrayList<>();

        @Override
        public ByteSink start() {
            sink.clear();
            return sink;
        }

        @Override
        public void append() {
            bytes.add(sink.toByteArray());
        }

        List<Integer> types() {
            return bytes.stream().map(b -> (int) b[0]).toList();
        }
    }

    private static ByteBuffer oneInstance(long from, long to) {
        ByteBuffer b = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(0, from).putInt(8, EventCodes.header(EventCodes.ENTER, 1));
        b.putLong(32, to).putInt(40, EventCodes.header(EventCodes.EXIT, 1));
        return b;
    }

    @Test
    void recordsAfterEachIntervalAndTraceWindowsOnTheirSchedule() throws FormatException {
        StatisticsMode mode = new StatisticsMode(100, false);
        mode.traceWindows(1_000, 200);
        Records out = new Records();
        StatisticsAggregator a = mode.start(0, null, 0);
        long[] tick = {0};

        mode.beforePass(0, () -> tick[0]);
        assertTrue(mode.traced(), "the first trace window opens at the first pass");
        a.accept(1, oneInstance(5, 15), 2, false);
        assertEquals(100 * MS, mode.afterPass(out, 0, () -> tick[0], 0), "next: the interval's end");
        assertEquals(List.of(), out.bytes);

        tick[0] = 100;
        assertEquals(100 * MS, mode.afterPass(out, 100 * MS, () -> tick[0], 0));
        assertEquals(List.of((int) RecordType.STATISTICS), out.types(), "one record for the one region");

        tick[0] = 250;
        mode.beforePass(250 * MS, () -> tick[0]);
        mode.afterPass(out, 250 * MS, () -> tick[0], 0);
        assertFalse(mode.traced(), "closed after the pass that crossed its end");
        assertEquals(List.of((int) RecordType.STATISTICS, (int) RecordType.TRACE_WINDOW), out.types(),
                "no instance in the second interval: no record; the window's record");
        ByteSource in = new ByteSource(ByteBuffer.wrap(out.bytes.get(1)));
        in.readByte("type");
        assertEquals(new TraceWindow(0, 250), TraceWindow.decode(in));

        mode.beforePass(500 * MS, () -> tick[0]);
        assertFalse(mode.traced(), "between windows");
        mode.beforePass(1_050 * MS, () -> tick[0]);
        assertTrue(mode.traced(), "the next window, a period later");
        tick[0] = 1_100;
        mode.finish(out, 1_100, 0);
        assertEquals(RecordType.TRACE_WINDOW, out.types().get(out.types().size() - 1), "closed at the end");
    }

    @Test
    void withoutTraceWindowsOnlyTheTestsTraceEverything() {
        assertFalse(new StatisticsMode(1_000, false).traced());
        assertTrue(new StatisticsMode(1_000, true).traced());
    }
}
