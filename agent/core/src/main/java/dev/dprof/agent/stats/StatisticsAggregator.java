package dev.dprof.agent.stats;

import dev.dprof.clock.SimulatedClock;
import dev.dprof.format.ByteSink;
import dev.dprof.format.EventCodes;
import dev.dprof.format.IntervalStatistics;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Statistics mode's aggregation (Li &amp; Zhang, "Scalable monitoring … virtual clock": dynamic records
 * kept per procedure instead of a trace, §6.3; the probes' intrusion taken off, §5.3): fed with the
 * drained slots of each thread, it pairs enters with exits per thread exactly as the trace's
 * statistics do ({@code ProfileStatistics}: the recursion rule, callers, virtual threads re-attributed at
 * their mounts) and keeps, per region, count, tick sums and a histogram; {@link #flush} writes one
 * {@link IntervalStatistics} record per region that has something to say, and starts the next interval.
 *
 * <p><b>Probe cost.</b> The paper's virtual time is the real time less the intrusion time. An instance
 * with {@code n} events recorded on its thread strictly between its enter and exit had {@code n + 1}
 * probes' worth of intrusion inside it (the nested events whole, the enter's part after its clock read
 * and the exit's part before it together one probe), so {@code min(Δk, (n + 1)·c)} is taken off, {@code c}
 * the cost per probe measured at start ({@code probeCostTicksX1024} of the header). The record keeps the
 * measured sum and what was taken off apart: the reader prints the compensated figure beside the bounds,
 * as an estimate, never inside them.
 *
 * <h2>Implementation notes</h2>
 * One thread (the drainer's) uses an instance. {@link #accept} reads each slot's tick, header and first
 * payload and allocates nothing in a steady state: the per-thread stacks, the regions' aggregates and
 * their slots are made at their first use and reused (a region's {@link RegionAggregate}, a thread's
 * {@link ThreadStack}, a histogram's growth to a duration longer than any before). A thread that ended is
 * forgotten. Ticks are on the stored clock (a simulated one applied), the clock the reader's slope
 * bounds are for.
 */
public final class StatisticsAggregator {
    private static final int SLOT_BYTES = 32;

    private final long costX1024;
    private final SimulatedClock simulated;
    private final ThreadStacks stacks = new ThreadStacks();
    private RegionAggregate[] regions = new RegionAggregate[64];
    private ByteBuffer histogramBytes = ByteBuffer.allocate(1 << 12);

    /**
     * @param costX1024 the cost of one probe in ticks × 1024, as the header says (0: nothing subtracted)
     * @param simulated the simulated clock the stored ticks are on, or null
     */
    public StatisticsAggregator(long costX1024, SimulatedClock simulated) {
        this.costX1024 = Math.max(0, costX1024);
        this.simulated = simulated;
    }

    /**
     * Aggregates {@code count} slots of thread {@code threadId} (the rings' layout, from index 0);
     * {@code threadEnded}: the thread has ended and these are its last.
     */
    public void accept(long threadId, ByteBuffer slots, int count, boolean threadEnded) {
        ThreadStack carrier = stacks.get(threadId);
        ThreadStack current = carrier;
        long mounted = 0;
        boolean inVirtual = false;
        for (int i = 0; i < count; i++) {
            int base = i * SLOT_BYTES;
            long real = slots.getLong(base);
            long tick = simulated == null ? real : simulated.apply(real);
            int header = slots.getInt(base + 8);
            int code = EventCodes.kind(header);
            int region = EventCodes.region(header);
            current.seq++;
            switch (code) {
                case EventCodes.ENTER, EventCodes.BARRIER_ENTER -> enter(current, region, tick, false, 0);
                case EventCodes.ENTER_INSTANCE -> enter(current, region, tick, true, slots.getLong(base + 16));
                case EventCodes.EXIT, EventCodes.EXIT_THROW, EventCodes.BARRIER_EXIT -> exit(current, region, tick);
                case EventCodes.SEND, EventCodes.RECEIVE -> message(current, region, slots.getLong(base + 16),
                        code == EventCodes.SEND);
                case EventCodes.VT_MOUNT -> {
                    mounted = slots.getLong(base + 16);
                    current = stacks.get(mounted);
                    current.seq++;
                    inVirtual = true;
                }
                case EventCodes.VT_UNMOUNT -> {
                    current = carrier;
                    inVirtual = false;
                }
                case EventCodes.PROGRESS, EventCodes.HANDOFF_PUT, EventCodes.HANDOFF_TAKE -> {
                    if (region != 0) {
                        aggregate(region).points++;
                    }
                }
                case EventCodes.THREAD_END -> {
                    if (inVirtual) {
                        ended(stacks.remove(mounted));
                        // Its last unmount follows: the events up to it count on a stack of nobody.
                        current = new ThreadStack();
                        inVirtual = false;
                    } else {
                        ended(stacks.remove(threadId));
                    }
                }
                default -> {
                    // other point events: only counted as nested events (seq) for the probe cost
                }
            }
        }
        if (threadEnded) {
            ended(stacks.remove(threadId));
        }
    }

    /** The thread {@code threadId} ended with no slots left to drain. */
    public void threadEnded(long threadId) {
        ended(stacks.remove(threadId));
    }

    /**
     * Writes one record per region that had instances, open ones, or messages in the interval, and
     * starts the next interval.
     *
     * @param endTick   the clock (stored) at the interval's end
     * @param lostSoFar events the process's rings dropped since start
     */
    public void flush(RecordOut out, long endTick, long lostSoFar) {
        for (RegionAggregate r : regions) {
            if (r != null && r.active()) {
                ByteSink sink = out.start();
                histogramBytes = r.write(sink, endTick, lostSoFar, histogramBytes);
                out.append();
            }
        }
    }

    private void enter(ThreadStack s, int region, long tick, boolean withInstance, long instance) {
        boolean counted = s.open(region) == 0;
        int caller = s.top();
        s.push(region, caller, counted, tick, withInstance, instance);
        if (counted) {
            aggregate(region).open++;
        }
    }

    private void exit(ThreadStack s, int region, long tick) {
        int at = s.find(region);
        if (at < 0) {
            aggregate(region).unpairedExits++;
            return;
        }
        // Frames above it lost their exits: they end unexited.
        while (s.depth - 1 > at) {
            abandonTop(s);
        }
        int d = s.depth - 1;
        if (s.counted[d]) {
            RegionAggregate r = aggregate(region);
            r.open--;
            long ticks = Math.max(0, tick - s.tick[d]);
            long nested = s.seq - s.seqAt[d] - 1;
            r.exited(s.tick[d], tick, correction(ticks, nested), s.caller[d], s.hasInstance[d], s.instance[d],
                    s.hasChannel[d], s.channel[d]);
        }
        s.pop();
    }

    /** {@code min(1024·Δk, (nested + 1)·c×1024)}, saturated. */
    private long correction(long ticks, long nested) {
        long scaled = ticks <= Long.MAX_VALUE / 1024 ? ticks * 1024 : Long.MAX_VALUE;
        long full;
        if (costX1024 == 0) {
            full = 0;
        } else if (nested + 1 > Long.MAX_VALUE / costX1024) {
            full = Long.MAX_VALUE;
        } else {
            full = (nested + 1) * costX1024;
        }
        return Math.min(scaled, full);
    }

    private void message(ThreadStack s, int region, long channel, boolean send) {
        aggregate(region).message(channel, send);
        if (s.depth > 0) {
            s.hasChannel[s.depth - 1] = true;
            s.channel[s.depth - 1] = channel;
        }
    }

    private void abandonTop(ThreadStack s) {
        int d = s.depth - 1;
        if (s.counted[d]) {
            RegionAggregate r = aggregate(s.region[d]);
            r.open--;
            r.unexited++;
        }
        s.pop();
    }

    private void ended(ThreadStack s) {
        if (s == null) {
            return;
        }
        while (s.depth > 0) {
            abandonTop(s);
        }
    }

    private RegionAggregate aggregate(int region) {
        if (region >= regions.length) {
            regions = Arrays.copyOf(regions, Math.max(region + 1, regions.length * 2));
        }
        RegionAggregate r = regions[region];
        if (r == null) {
            r = new RegionAggregate(region);
            regions[region] = r;
        }
        return r;
    }
}
