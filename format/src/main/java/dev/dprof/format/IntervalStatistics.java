package dev.dprof.format;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;

/**
 * One region's figures over one interval of a run in statistics mode (docs/FORMAT.md, "{@code S}
 * interval statistics"): what the drainer aggregated from the events instead of writing them. Every
 * duration stays in ticks of the process's own (stored) clock, so that the reader converts it with
 * the same slope bounds as a duration of the trace; the histogram is HdrHistogram's own encoding of
 * the durations in ticks, which this module keeps as bytes (it depends on nothing).
 *
 * <p>The agent writes the record through the static {@code write…} methods, which allocate nothing;
 * readers get it from {@link #decode}.
 *
 * @param region          the region's id ({@code R} record)
 * @param firstTick       the earliest tick of an event the figures cover (a counted instance's enter); the
 *                        tick of the interval's end when they cover none
 * @param lastTick        the latest such tick (a counted instance's exit)
 * @param endTick         the drainer's clock when the interval ended (the record was made)
 * @param lostSoFar       events the process's rings dropped since it started (cumulative; the reader keeps
 *                        the largest)
 * @param open            instances of the region open at the interval's end (entered, not yet exited)
 * @param unexited        instances whose thread ended before their exit (never counted)
 * @param unpairedExits   exits of the region while it was not open (an enter lost), ignored
 * @param points          point events of the region (a progress point's, a handoff site's puts and takes)
 * @param all             every instance that exited in the interval
 * @param callers         per caller region, the same instances split by the region open around them
 * @param callersLeftOut  instances whose caller found no room among {@link #CAPACITY} callers (in {@link #all} only)
 * @param instances       per instance id ({@code ENTER_INSTANCE}), the same instances split by their id
 * @param instancesLeftOut instances whose id found no room among {@link #CAPACITY} ids (in {@link #all} only)
 * @param peers           message events of the region in the interval, per channel
 * @param peersLeftOut    message events and instances whose channel found no room among {@link #CAPACITY} channels
 */
public record IntervalStatistics(int region, long firstTick, long lastTick, long endTick, long lostSoFar, long open,
                                 long unexited, long unpairedExits, long points, Figures all, List<Caller> callers,
                                 long callersLeftOut, List<Instance> instances, long instancesLeftOut,
                                 List<Peer> peers, long peersLeftOut) {

    /**
     * The most callers, instance ids and channels one record splits its figures by: it keeps a record's
     * size independent of the event rate (docs/FORMAT.md gives the bound).
     */
    public static final int CAPACITY = 16;
    /** {@link Caller#caller} of an instance entered with no region open on its thread. */
    public static final int TOP = -1;

    public IntervalStatistics {
        callers = List.copyOf(callers);
        instances = List.copyOf(instances);
        peers = List.copyOf(peers);
    }

    /**
     * The durations of a set of instances in ticks of the process's clock.
     *
     * @param count          instances
     * @param positive       instances whose exit tick is above their enter tick (their lower bound drops a tick)
     * @param ticks          the sum of exit tick − enter tick (unsigned, 128 bits on disk)
     * @param minTicks       the shortest (0 without instances)
     * @param maxTicks       the longest (0 without instances)
     * @param correctionX1024 the probe cost taken off the sum, in 1/1024 tick (the paper's intrusion time)
     * @param histogram      the durations in ticks, HdrHistogram's {@code encodeIntoByteBuffer} form; empty
     *                       without instances
     */
    public record Figures(long count, long positive, BigInteger ticks, long minTicks, long maxTicks,
                          BigInteger correctionX1024, byte[] histogram) {
        public static final Figures NONE = new Figures(0, 0, BigInteger.ZERO, 0, 0, BigInteger.ZERO, new byte[0]);
    }

    /** The instances entered while {@code caller} was the innermost region open ({@link #TOP}: none). */
    public record Caller(int caller, Figures figures) {
    }

    /** The instances of one instance id. */
    public record Instance(long instance, Figures figures) {
    }

    /**
     * One channel's message events in the region: {@code sends} and {@code receives} counted, and the
     * durations of the region's instances around them (an instance takes the channel of the last
     * message event recorded directly inside it). For TCP the channel is the connection's number, whose
     * {@code C} record names the peer.
     */
    public record Peer(long channel, long sends, long receives, Figures figures) {
    }

    /**
     * The most bytes one figures block takes when its longest duration is below {@code 2^log2MaxTicks}
     * ticks, whatever the number of instances: nine varints, and HdrHistogram's encoding (a 40-byte
     * header, then at most 9 bytes per bucket up to the longest duration's; with 2 significant digits
     * 128 buckets per power of two above 2⁸ ticks, 256 below).
     */
    public static long figuresBoundBytes(int log2MaxTicks) {
        long buckets = (Math.max(1, log2MaxTicks - 7) + 1) * 128L;
        return 9 * ByteSink.MAX_VARINT_BYTES + 40 + 9 * buckets;
    }

    /**
     * The most bytes a record takes whose durations are below {@code 2^log2MaxTicks} ticks and which
     * splits its figures into {@code entries} callers, instance ids and peers together (at most
     * 3 × {@link #CAPACITY}): the head, the counts, each entry's key, and 1 + {@code entries} figures blocks.
     */
    public static long recordBoundBytes(int log2MaxTicks, int entries) {
        long head = 1 + 9L * ByteSink.MAX_VARINT_BYTES + 6L * ByteSink.MAX_VARINT_BYTES;
        return head + entries * 3L * ByteSink.MAX_VARINT_BYTES + (1L + entries) * figuresBoundBytes(log2MaxTicks);
    }

    /** Encodes the record as the agent writes it (type byte first): for copies, and the tests. */
    public void encode(ByteSink out) {
        writeHead(out, region, firstTick, lastTick, endTick, lostSoFar, open, unexited, unpairedExits, points);
        write(out, all);
        writeCount(out, callers.size());
        for (Caller c : callers) {
            writeCaller(out, c.caller());
            write(out, c.figures());
        }
        writeLeftOut(out, callersLeftOut);
        writeCount(out, instances.size());
        for (Instance i : instances) {
            writeInstance(out, i.instance());
            write(out, i.figures());
        }
        writeLeftOut(out, instancesLeftOut);
        writeCount(out, peers.size());
        for (Peer p : peers) {
            writePeer(out, p.channel(), p.sends(), p.receives());
            write(out, p.figures());
        }
        writeLeftOut(out, peersLeftOut);
    }

    private static void write(ByteSink out, Figures f) {
        writeFigures(out, f.count(), f.positive(), f.ticks().shiftRight(64).longValue(), f.ticks().longValue(),
                f.minTicks(), f.maxTicks(), f.correctionX1024().shiftRight(64).longValue(), f.correctionX1024().longValue(),
                f.histogram(), f.histogram().length);
    }

    /** Starts a record: the type byte and everything up to the region's own figures. */
    public static void writeHead(ByteSink out, int region, long firstTick, long lastTick, long endTick, long lostSoFar,
                                 long open, long unexited, long unpairedExits, long points) {
        out.writeByte(RecordType.STATISTICS);
        out.writeVarLong(region);
        out.writeSignedVarLong(firstTick);
        out.writeSignedVarLong(lastTick);
        out.writeSignedVarLong(endTick);
        out.writeVarLong(lostSoFar);
        out.writeVarLong(open);
        out.writeVarLong(unexited);
        out.writeVarLong(unpairedExits);
        out.writeVarLong(points);
    }

    /**
     * One figures block; the 128-bit sums as their high and low 64 bits, the histogram's {@code length}
     * bytes from {@code histogram}.
     */
    public static void writeFigures(ByteSink out, long count, long positive, long ticksHigh, long ticksLow,
                                    long minTicks, long maxTicks, long correctionHigh, long correctionLow,
                                    byte[] histogram, int length) {
        out.writeVarLong(count);
        if (count == 0) {
            return;
        }
        out.writeVarLong(positive);
        out.writeVarLong(ticksHigh);
        out.writeVarLong(ticksLow);
        out.writeVarLong(minTicks);
        out.writeVarLong(maxTicks);
        out.writeVarLong(correctionHigh);
        out.writeVarLong(correctionLow);
        out.writeVarLong(length);
        out.reserve(length);
        System.arraycopy(histogram, 0, out.array(), out.size(), length);
        out.skip(length);
    }

    /** A count of entries to follow (callers, instances or peers). */
    public static void writeCount(ByteSink out, int entries) {
        out.writeVarLong(entries);
    }

    /** A caller entry's key; its figures follow. */
    public static void writeCaller(ByteSink out, int caller) {
        out.writeVarLong(caller + 1L);
    }

    /** An instance entry's key; its figures follow. */
    public static void writeInstance(ByteSink out, long instance) {
        out.writeSignedVarLong(instance);
    }

    /** A peer entry's key and counts; its figures follow. */
    public static void writePeer(ByteSink out, long channel, long sends, long receives) {
        out.writeSignedVarLong(channel);
        out.writeVarLong(sends);
        out.writeVarLong(receives);
    }

    /** How many entries were left out (after each list). */
    public static void writeLeftOut(ByteSink out, long leftOut) {
        out.writeVarLong(leftOut);
    }

    /** Decodes the record after its type byte. */
    public static IntervalStatistics decode(ByteSource in) throws FormatException {
        long region = in.readVarLong("statistics region");
        if (region < 0 || region > Integer.MAX_VALUE) {
            throw new FormatException("statistics region out of range: " + region);
        }
        long first = in.readSignedVarLong("statistics first tick");
        long last = in.readSignedVarLong("statistics last tick");
        long end = in.readSignedVarLong("statistics end tick");
        long lost = in.readVarLong("statistics lost events");
        long open = in.readVarLong("statistics open instances");
        long unexited = in.readVarLong("statistics unexited instances");
        long unpaired = in.readVarLong("statistics unpaired exits");
        long points = in.readVarLong("statistics point events");
        Figures all = figures(in, "region");
        int n = entries(in, "callers");
        List<Caller> callers = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            long c = in.readVarLong("statistics caller") - 1;
            if (c < TOP || c > Integer.MAX_VALUE) {
                throw new FormatException("statistics caller out of range: " + c);
            }
            callers.add(new Caller((int) c, figures(in, "caller")));
        }
        long callersLeftOut = leftOut(in, "callers");
        n = entries(in, "instances");
        List<Instance> instances = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            instances.add(new Instance(in.readSignedVarLong("statistics instance"), figures(in, "instance")));
        }
        long instancesLeftOut = leftOut(in, "instances");
        n = entries(in, "peers");
        List<Peer> peers = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            long channel = in.readSignedVarLong("statistics channel");
            long sends = in.readVarLong("statistics sends");
            long receives = in.readVarLong("statistics receives");
            peers.add(new Peer(channel, sends, receives, figures(in, "peer")));
        }
        long peersLeftOut = leftOut(in, "peers");
        if (first > last) {
            throw new FormatException("statistics of region " + region + ": first tick " + first + " after last tick " + last);
        }
        return new IntervalStatistics((int) region, first, last, end, lost, open, unexited, unpaired, points, all, callers,
                callersLeftOut, instances, instancesLeftOut, peers, peersLeftOut);
    }

    private static int entries(ByteSource in, String what) throws FormatException {
        return in.readVarInt("statistics " + what, CAPACITY);
    }

    private static long leftOut(ByteSource in, String what) throws FormatException {
        long n = in.readVarLong("statistics " + what + " left out");
        if (n < 0) {
            throw new FormatException("statistics " + what + " left out: negative count " + n);
        }
        return n;
    }

    private static Figures figures(ByteSource in, String what) throws FormatException {
        long count = in.readVarLong("statistics " + what + " count");
        if (count < 0) {
            throw new FormatException("statistics " + what + ": negative count " + count);
        }
        if (count == 0) {
            return Figures.NONE;
        }
        long positive = in.readVarLong("statistics " + what + " positive count");
        BigInteger ticks = wide(in.readVarLong("statistics " + what + " tick sum"),
                in.readVarLong("statistics " + what + " tick sum"));
        long min = in.readVarLong("statistics " + what + " minimum");
        long max = in.readVarLong("statistics " + what + " maximum");
        BigInteger correction = wide(in.readVarLong("statistics " + what + " correction"),
                in.readVarLong("statistics " + what + " correction"));
        int length = in.readVarInt("statistics " + what + " histogram length", 1 << 24);
        if (in.remaining() < length) {
            throw new FormatException("truncated while reading statistics " + what + " histogram");
        }
        byte[] histogram = new byte[length];
        in.buffer().get(histogram);
        if (positive < 0 || positive > count || min < 0 || max < min) {
            throw new FormatException("statistics " + what + ": inconsistent figures (count " + count + ", positive "
                    + positive + ", min " + min + ", max " + max + ")");
        }
        return new Figures(count, positive, ticks, min, max, correction, histogram);
    }

    /** {@code high · 2⁶⁴ + low}, both unsigned. */
    private static BigInteger wide(long high, long low) {
        return new BigInteger(Long.toUnsignedString(high)).shiftLeft(64).add(new BigInteger(Long.toUnsignedString(low)));
    }
}
