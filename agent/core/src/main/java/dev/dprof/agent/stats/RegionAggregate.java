package dev.dprof.agent.stats;

import dev.dprof.format.ByteSink;
import dev.dprof.format.IntervalStatistics;
import java.nio.ByteBuffer;

/**
 * One region's figures over the current interval: all its instances, and the same split by caller
 * region, by instance id and by the channel of the messages inside them, each split into at most
 * {@link IntervalStatistics#CAPACITY} slots so that a record's size does not grow with the event rate.
 *
 * <h2>Implementation notes</h2>
 * A slot keeps its key and figures across intervals; a new key takes a free slot, or one idle in
 * this interval, so a steady set of callers, ids and channels allocates nothing after its first
 * interval. A key that finds no slot is counted as left out (its instances are in {@link #all} still).
 */
final class RegionAggregate {
    private static final int N = IntervalStatistics.CAPACITY;

    final int region;
    final DurationFigures all = new DurationFigures();
    /** Instances entered and not yet exited: a gauge, not reset per interval. */
    long open;
    long unexited;
    long unpairedExits;
    /** Point events of the region (progress points, handoff puts and takes). */
    long points;
    long firstTick = Long.MAX_VALUE;
    long lastTick = Long.MIN_VALUE;

    private final int[] callers = new int[N];
    private final DurationFigures[] callerFigures = new DurationFigures[N];
    private int callerSlots;
    private long callersLeftOut;

    private final long[] instances = new long[N];
    private final DurationFigures[] instanceFigures = new DurationFigures[N];
    private int instanceSlots;
    private long instancesLeftOut;

    private final long[] channels = new long[N];
    private final long[] sends = new long[N];
    private final long[] receives = new long[N];
    private final DurationFigures[] peerFigures = new DurationFigures[N];
    private int peerSlots;
    private long peersLeftOut;

    RegionAggregate(int region) {
        this.region = region;
    }

    /** An instance that exited: {@code enterTick} to {@code exitTick}, with its caller, id and channel. */
    void exited(long enterTick, long exitTick, long correctionX1024, int caller, boolean hasInstance, long instance,
                boolean hasChannel, long channel) {
        long ticks = Math.max(0, exitTick - enterTick);
        all.add(ticks, correctionX1024);
        firstTick = Math.min(firstTick, enterTick);
        lastTick = Math.max(lastTick, exitTick);
        int c = callerSlot(caller);
        if (c >= 0) {
            callerFigures[c].add(ticks, correctionX1024);
        } else {
            callersLeftOut++;
        }
        if (hasInstance) {
            int i = instanceSlot(instance);
            if (i >= 0) {
                instanceFigures[i].add(ticks, correctionX1024);
            } else {
                instancesLeftOut++;
            }
        }
        if (hasChannel) {
            int p = peerSlot(channel);
            if (p >= 0) {
                peerFigures[p].add(ticks, correctionX1024);
            } else {
                peersLeftOut++;
            }
        }
    }

    /** A message event of this region on {@code channel}. */
    void message(long channel, boolean send) {
        int p = peerSlot(channel);
        if (p < 0) {
            peersLeftOut++;
        } else if (send) {
            sends[p]++;
        } else {
            receives[p]++;
        }
    }

    /** Whether the interval has anything to say of this region. */
    boolean active() {
        return all.count() > 0 || open > 0 || unexited > 0 || unpairedExits > 0 || points > 0 || peersLeftOut > 0
                || messages();
    }

    private boolean messages() {
        for (int p = 0; p < peerSlots; p++) {
            if (sends[p] > 0 || receives[p] > 0) {
                return true;
            }
        }
        return false;
    }

    /** Writes the interval's record and starts the next interval; returns the (maybe grown) scratch buffer. */
    ByteBuffer write(ByteSink out, long endTick, long lostSoFar, ByteBuffer scratch) {
        boolean timed = all.count() > 0;
        IntervalStatistics.writeHead(out, region, timed ? firstTick : endTick, timed ? lastTick : endTick, endTick,
                lostSoFar, open, unexited, unpairedExits, points);
        ByteBuffer b = all.write(out, scratch);
        IntervalStatistics.writeCount(out, used(callerFigures, callerSlots));
        for (int c = 0; c < callerSlots; c++) {
            if (callerFigures[c].count() > 0) {
                IntervalStatistics.writeCaller(out, callers[c]);
                b = callerFigures[c].write(out, b);
            }
        }
        IntervalStatistics.writeLeftOut(out, callersLeftOut);
        IntervalStatistics.writeCount(out, used(instanceFigures, instanceSlots));
        for (int i = 0; i < instanceSlots; i++) {
            if (instanceFigures[i].count() > 0) {
                IntervalStatistics.writeInstance(out, instances[i]);
                b = instanceFigures[i].write(out, b);
            }
        }
        IntervalStatistics.writeLeftOut(out, instancesLeftOut);
        int peers = 0;
        for (int p = 0; p < peerSlots; p++) {
            if (peerBusy(p)) {
                peers++;
            }
        }
        IntervalStatistics.writeCount(out, peers);
        for (int p = 0; p < peerSlots; p++) {
            if (peerBusy(p)) {
                IntervalStatistics.writePeer(out, channels[p], sends[p], receives[p]);
                b = peerFigures[p].write(out, b);
            }
        }
        IntervalStatistics.writeLeftOut(out, peersLeftOut);
        reset();
        return b;
    }

    private boolean peerBusy(int p) {
        return sends[p] > 0 || receives[p] > 0 || peerFigures[p].count() > 0;
    }

    private static int used(DurationFigures[] figures, int slots) {
        int n = 0;
        for (int i = 0; i < slots; i++) {
            if (figures[i].count() > 0) {
                n++;
            }
        }
        return n;
    }

    private void reset() {
        all.reset();
        unexited = 0;
        unpairedExits = 0;
        points = 0;
        firstTick = Long.MAX_VALUE;
        lastTick = Long.MIN_VALUE;
        for (int c = 0; c < callerSlots; c++) {
            callerFigures[c].reset();
        }
        callersLeftOut = 0;
        for (int i = 0; i < instanceSlots; i++) {
            instanceFigures[i].reset();
        }
        instancesLeftOut = 0;
        for (int p = 0; p < peerSlots; p++) {
            peerFigures[p].reset();
            sends[p] = 0;
            receives[p] = 0;
        }
        peersLeftOut = 0;
    }

    private int callerSlot(int caller) {
        for (int c = 0; c < callerSlots; c++) {
            if (callers[c] == caller) {
                return c;
            }
        }
        if (callerSlots < N) {
            callers[callerSlots] = caller;
            callerFigures[callerSlots] = new DurationFigures();
            return callerSlots++;
        }
        for (int c = 0; c < N; c++) {
            if (callerFigures[c].count() == 0) {
                callers[c] = caller;
                return c;
            }
        }
        return -1;
    }

    private int instanceSlot(long instance) {
        for (int i = 0; i < instanceSlots; i++) {
            if (instances[i] == instance) {
                return i;
            }
        }
        if (instanceSlots < N) {
            instances[instanceSlots] = instance;
            instanceFigures[instanceSlots] = new DurationFigures();
            return instanceSlots++;
        }
        for (int i = 0; i < N; i++) {
            if (instanceFigures[i].count() == 0) {
                instances[i] = instance;
                return i;
            }
        }
        return -1;
    }

    private int peerSlot(long channel) {
        for (int p = 0; p < peerSlots; p++) {
            if (channels[p] == channel) {
                return p;
            }
        }
        if (peerSlots < N) {
            channels[peerSlots] = channel;
            peerFigures[peerSlots] = new DurationFigures();
            return peerSlots++;
        }
        for (int p = 0; p < N; p++) {
            if (!peerBusy(p)) {
                channels[p] = channel;
                return p;
            }
        }
        return -1;
    }
}
