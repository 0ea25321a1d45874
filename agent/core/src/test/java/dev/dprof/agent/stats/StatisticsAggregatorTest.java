package dev.dprof.agent.stats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.format.ByteSink;
import dev.dprof.format.ByteSource;
import dev.dprof.format.EventCodes;
import dev.dprof.format.FormatException;
import dev.dprof.format.IntervalStatistics;
import dev.dprof.format.RecordType;
import java.lang.management.ManagementFactory;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/** The aggregator on hand-made slots: what it pairs, what it counts, what it writes, and what it costs. */
class StatisticsAggregatorTest {
    private static final int R1 = 1;
    private static final int R2 = 2;
    private static final int R3 = 3;
    private static final int R4 = 4;
    private static final int R5 = 5;
    private static final int R6 = 6;

    /** Slots in the rings' layout: {@code [tick:8][header:4][cpu:4][a:8][b:8]}. */
    private static final class Slots {
        final ByteBuffer buffer;
        int count;

        Slots(int capacity) {
            buffer = ByteBuffer.allocateDirect(capacity * 32).order(ByteOrder.LITTLE_ENDIAN);
        }

        Slots add(int kind, int region, long tick, long a) {
            int base = count++ * 32;
            buffer.putLong(base, tick);
            buffer.putInt(base + 8, EventCodes.header(kind, region));
            buffer.putInt(base + 12, 0);
            buffer.putLong(base + 16, a);
            buffer.putLong(base + 24, 0);
            return this;
        }

        Slots add(int kind, int region, long tick) {
            return add(kind, region, tick, 0);
        }
    }

    /** Keeps every record written, decoded, by region. */
    private static final class Records implements RecordOut {
        final ByteSink sink = new ByteSink(1 << 10);
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

        Map<Integer, IntervalStatistics> byRegion() throws FormatException {
            Map<Integer, IntervalStatistics> out = new HashMap<>();
            for (byte[] b : bytes) {
                ByteSource in = new ByteSource(ByteBuffer.wrap(b));
                assertEquals(RecordType.STATISTICS, in.readByte("type"));
                IntervalStatistics s = IntervalStatistics.decode(in);
                out.put(s.region(), s);
                assertEquals(0, in.remaining(), "the record is read to its end");
            }
            return out;
        }
    }

    private static Histogram histogram(IntervalStatistics.Figures f) {
        return Histogram.decodeFromByteBuffer(ByteBuffer.wrap(f.histogram()), 0);
    }

    @Test
    void pairsEntersWithExitsCountsRecursionOnceAndNamesCallers() throws FormatException {
        StatisticsAggregator a = new StatisticsAggregator(2048, null);
        Slots s = new Slots(16)
                .add(EventCodes.ENTER, R1, 100).add(EventCodes.ENTER, R2, 110).add(EventCodes.EXIT, R2, 150)
                .add(EventCodes.EXIT, R1, 200)
                .add(EventCodes.ENTER, R1, 300).add(EventCodes.ENTER, R1, 310).add(EventCodes.EXIT, R1, 320)
                .add(EventCodes.EXIT_THROW, R1, 400);
        a.accept(1, s.buffer, s.count, false);
        Records out = new Records();
        a.flush(out, 1000, 7);
        Map<Integer, IntervalStatistics> r = out.byRegion();
        IntervalStatistics r1 = r.get(R1);
        assertEquals(2, r1.all().count(), "the recursive entry is not an instance of its own");
        assertEquals(BigInteger.valueOf(200), r1.all().ticks());
        assertEquals(100, r1.all().minTicks());
        assertEquals(100, r1.all().maxTicks());
        assertEquals(100, r1.firstTick());
        assertEquals(400, r1.lastTick());
        assertEquals(7, r1.lostSoFar());
        assertEquals(0, r1.open());
        // Two nested events in each: (2 + 1) probes of 2 ticks each, in 1/1024 tick.
        assertEquals(BigInteger.valueOf(2 * 3 * 2048), r1.all().correctionX1024());
        assertEquals(List.of(IntervalStatistics.TOP), r1.callers().stream().map(IntervalStatistics.Caller::caller).toList());
        assertEquals(2, histogram(r1.all()).getCountAtValue(100));
        IntervalStatistics r2 = r.get(R2);
        assertEquals(1, r2.all().count());
        assertEquals(BigInteger.valueOf(40), r2.all().ticks());
        assertEquals(BigInteger.valueOf(2048), r2.all().correctionX1024(), "an empty instance loses one probe");
        assertEquals(R1, r2.callers().get(0).caller());
    }

    @Test
    void anIntervalStartsEmptyButKeepsWhatIsOpen() throws FormatException {
        StatisticsAggregator a = new StatisticsAggregator(0, null);
        Slots s = new Slots(4).add(EventCodes.ENTER, R1, 10);
        a.accept(1, s.buffer, s.count, false);
        Records first = new Records();
        a.flush(first, 20, 0);
        assertEquals(1, first.byRegion().get(R1).open());
        assertEquals(0, first.byRegion().get(R1).all().count());
        Slots exit = new Slots(4).add(EventCodes.EXIT, R1, 50);
        a.accept(1, exit.buffer, exit.count, false);
        Records second = new Records();
        a.flush(second, 60, 0);
        IntervalStatistics r1 = second.byRegion().get(R1);
        assertEquals(1, r1.all().count());
        assertEquals(BigInteger.valueOf(40), r1.all().ticks());
        assertEquals(0, r1.open());
        Records third = new Records();
        a.flush(third, 70, 0);
        assertEquals(List.of(), third.bytes, "nothing to say: no record");
    }

    @Test
    void instancesUnpairedExitsAndThreadsThatEnd() throws FormatException {
        StatisticsAggregator a = new StatisticsAggregator(0, null);
        Slots s = new Slots(8).add(EventCodes.ENTER_INSTANCE, R3, 10, 5).add(EventCodes.EXIT, R3, 20)
                .add(EventCodes.ENTER_INSTANCE, R3, 30, 6).add(EventCodes.EXIT, R3, 60)
                .add(EventCodes.EXIT, R4, 70).add(EventCodes.ENTER, R5, 80);
        a.accept(1, s.buffer, s.count, true);
        Records out = new Records();
        a.flush(out, 100, 0);
        Map<Integer, IntervalStatistics> r = out.byRegion();
        assertEquals(List.of(5L, 6L), r.get(R3).instances().stream().map(IntervalStatistics.Instance::instance).toList());
        assertEquals(BigInteger.valueOf(30), r.get(R3).instances().get(1).figures().ticks());
        assertEquals(1, r.get(R4).unpairedExits());
        assertEquals(1, r.get(R5).unexited(), "its thread ended inside it");
        assertEquals(0, r.get(R5).open());
        assertEquals(0, r.get(R5).all().count());
    }

    @Test
    void aVirtualThreadsInstanceIsPairedAcrossItsCarriers() throws FormatException {
        StatisticsAggregator a = new StatisticsAggregator(0, null);
        long vt = 1000;
        Slots first = new Slots(4).add(EventCodes.VT_MOUNT, 0, 0, vt).add(EventCodes.ENTER, R1, 10)
                .add(EventCodes.VT_UNMOUNT, 0, 20, vt).add(EventCodes.ENTER, R2, 25);
        a.accept(1, first.buffer, first.count, false);
        Slots second = new Slots(4).add(EventCodes.VT_MOUNT, 0, 30, vt).add(EventCodes.EXIT, R1, 50)
                .add(EventCodes.VT_UNMOUNT, 0, 60, vt);
        a.accept(2, second.buffer, second.count, false);
        Records out = new Records();
        a.flush(out, 100, 0);
        Map<Integer, IntervalStatistics> r = out.byRegion();
        assertEquals(1, r.get(R1).all().count());
        assertEquals(BigInteger.valueOf(40), r.get(R1).all().ticks());
        assertEquals(1, r.get(R2).open(), "the carrier's own region stays open on the carrier");
    }

    @Test
    void messagesCountPerChannelWithTheInstancesAroundThem() throws FormatException {
        StatisticsAggregator a = new StatisticsAggregator(0, null);
        Slots s = new Slots(8).add(EventCodes.ENTER, R6, 0).add(EventCodes.SEND, R6, 5, 77).add(EventCodes.EXIT, R6, 10)
                .add(EventCodes.RECEIVE, R6, 20, 78);
        a.accept(1, s.buffer, s.count, false);
        Records out = new Records();
        a.flush(out, 100, 0);
        List<IntervalStatistics.Peer> peers = out.byRegion().get(R6).peers();
        assertEquals(2, peers.size());
        assertEquals(77, peers.get(0).channel());
        assertEquals(1, peers.get(0).sends());
        assertEquals(1, peers.get(0).figures().count());
        assertEquals(78, peers.get(1).channel());
        assertEquals(1, peers.get(1).receives());
        assertEquals(0, peers.get(1).figures().count());
    }

    @Test
    void pointEventsAreCountedPerRegion() throws FormatException {
        StatisticsAggregator a = new StatisticsAggregator(0, null);
        Slots s = new Slots(8).add(EventCodes.PROGRESS, R5, 1, 1).add(EventCodes.PROGRESS, R5, 2, 1)
                .add(EventCodes.HANDOFF_PUT, R6, 3, 16).add(EventCodes.HANDOFF_TAKE, R6, 4, 16)
                .add(EventCodes.THREAD_START, 0, 0);
        a.accept(1, s.buffer, s.count, false);
        Records out = new Records();
        a.flush(out, 10, 0);
        Map<Integer, IntervalStatistics> r = out.byRegion();
        assertEquals(2, r.get(R5).points());
        assertEquals(2, r.get(R6).points());
        assertEquals(2, r.size(), "region 0 (a thread's start) is no region");
    }

    @Test
    void callersBeyondTheCapacityAreCountedAsLeftOut() throws FormatException {
        StatisticsAggregator a = new StatisticsAggregator(0, null);
        int callers = IntervalStatistics.CAPACITY + 3;
        Slots s = new Slots(4 * callers);
        for (int c = 0; c < callers; c++) {
            s.add(EventCodes.ENTER, 100 + c, 10L * c).add(EventCodes.ENTER, R1, 10L * c + 1)
                    .add(EventCodes.EXIT, R1, 10L * c + 2).add(EventCodes.EXIT, 100 + c, 10L * c + 3);
        }
        a.accept(1, s.buffer, s.count, false);
        Records out = new Records();
        a.flush(out, 1000, 0);
        IntervalStatistics r1 = out.byRegion().get(R1);
        assertEquals(callers, r1.all().count());
        assertEquals(IntervalStatistics.CAPACITY, r1.callers().size());
        assertEquals(3, r1.callersLeftOut());
    }

    /** Enter/exit pairs of two regions on four threads, durations log-uniform in [2 000, 200 000) ticks. */
    private static Slots[] workload(int instancesPerThread, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        Slots[] threads = new Slots[4];
        for (int t = 0; t < threads.length; t++) {
            threads[t] = new Slots(2 * instancesPerThread);
            long tick = 0;
            for (int i = 0; i < instancesPerThread; i++) {
                int region = i % 2 == 0 ? R1 : R2;
                long length = (long) (2_000 * Math.pow(100, random.nextDouble()));
                threads[t].add(EventCodes.ENTER, region, tick).add(EventCodes.EXIT, region, tick + length);
                tick += length + 50;
            }
        }
        return threads;
    }

    private static long[] bytesPerInterval(StatisticsAggregator a, Slots[] threads, int intervals) {
        long[] bytes = new long[intervals];
        for (int n = 0; n < intervals; n++) {
            for (int t = 0; t < threads.length; t++) {
                a.accept(t + 1, threads[t].buffer, threads[t].count, false);
            }
            Records out = new Records();
            a.flush(out, 0, 0);
            assertEquals(2, out.bytes.size(), "one record per region and interval");
            for (byte[] b : out.bytes) {
                bytes[n] += b.length;
            }
        }
        return bytes;
    }

    /**
     * Disk use does not follow the event rate: 10⁵ and 10⁶ events per interval (ten times as many,
     * from the same distribution) each write one record per region, of about the same size, within
     * docs/FORMAT.md's bound for durations up to 2¹⁸ ticks. The figures are in BENCHMARKS.md.
     */
    @Test
    void bytesPerRegionAndIntervalDoNotGrowWithTheEventRate() {
        int intervals = 5;
        long[] slow = bytesPerInterval(new StatisticsAggregator(1024, null), workload(100_000 / 8, 1), intervals);
        long[] fast = bytesPerInterval(new StatisticsAggregator(1024, null), workload(1_000_000 / 8, 1), intervals);
        long bound = 2 * IntervalStatistics.recordBoundBytes(18, 1);
        for (int n = 0; n < intervals; n++) {
            System.out.printf("interval %d: 10^5 events: %d bytes, 10^6 events: %d bytes (2 regions)%n", n, slow[n], fast[n]);
            assertTrue(fast[n] <= bound && slow[n] <= bound, "within the documented bound of " + bound);
            assertTrue(fast[n] < 2 * slow[n], "ten times the events, less than twice the bytes: " + fast[n] + " vs " + slow[n]);
        }
    }

    /**
     * The drainer's path allocates nothing per event once its threads, regions and histograms exist:
     * 200 passes over 4 × 8 192 slots after a warm-up allocate under a kilobyte in all.
     */
    @Test
    void steadyStateAggregationAllocatesNothingPerEvent() {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        StatisticsAggregator a = new StatisticsAggregator(1024, null);
        Slots[] threads = workload(4096, 2);
        for (int warm = 0; warm < 50; warm++) {
            for (int t = 0; t < threads.length; t++) {
                a.accept(t + 1, threads[t].buffer, threads[t].count, false);
            }
        }
        long before = mx.getCurrentThreadAllocatedBytes();
        for (int pass = 0; pass < 200; pass++) {
            for (int t = 0; t < threads.length; t++) {
                a.accept(t + 1, threads[t].buffer, threads[t].count, false);
            }
        }
        long allocated = mx.getCurrentThreadAllocatedBytes() - before;
        assertTrue(allocated < 1024, "allocated " + allocated + " bytes for " + 200 * 4 * 8192 + " events");
    }
}
