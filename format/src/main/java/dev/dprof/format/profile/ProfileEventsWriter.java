package dev.dprof.format.profile;

import dev.dprof.format.ByteSink;
import dev.dprof.format.EventKind;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Writes a consolidated profile's events in their global causal order (layout in
 * {@code docs/FORMAT.md}, "Consolidated profile"): a magic line, then blocks of at most
 * {@value #BLOCK_BYTES} bytes, each {@code [length:int32 LE][events]}. Within a block, {@code lo}
 * is a delta from the previous event's {@code lo} and {@code tick} a delta from the previous
 * tick of the same stream; both reset at every block, so a reader can start at any block.
 */
public final class ProfileEventsWriter implements AutoCloseable {
    public static final byte[] MAGIC = "DPROFEV1\n".getBytes(StandardCharsets.US_ASCII);
    static final int BLOCK_BYTES = 1 << 16;
    /** The longest event: one byte for the kind, seven varints. */
    static final int MAX_EVENT_BYTES = 1 + 7 * ByteSink.MAX_VARINT_BYTES;

    private final FileChannel channel;
    private final boolean withTruth;
    private final ByteSink block = new ByteSink(BLOCK_BYTES + MAX_EVENT_BYTES);
    private final ByteBuffer lengthPrefix = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
    private long[] lastTick = new long[64];
    private boolean[] seen = new boolean[64];
    private long lastLo;
    private long events;

    public ProfileEventsWriter(Path file, boolean withTruth) throws IOException {
        this.channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING);
        this.withTruth = withTruth;
        channel.write(ByteBuffer.wrap(MAGIC));
    }

    public void write(ProfileEvent e) throws IOException {
        write(e.stream, e.kind, e.region, e.tick, e.lo, e.hi, e.truth, e.a, e.b);
    }

    /**
     * Appends one event (the fields of {@link ProfileEvent}).
     *
     * <p>Implementation notes: the consolidator calls this once per event, so it reserves the
     * longest encoding once ({@link #MAX_EVENT_BYTES}) and then writes unchecked, and takes
     * primitives rather than a filled-in {@link ProfileEvent}.
     */
    public void write(int stream, EventKind kind, int region, long tick, long lo, long hi, long truth, long a, long b)
            throws IOException {
        if (stream >= seen.length) {
            int size = Math.max(stream + 1, seen.length * 2);
            seen = java.util.Arrays.copyOf(seen, size);
            lastTick = java.util.Arrays.copyOf(lastTick, size);
        }
        block.reserve(MAX_EVENT_BYTES);
        block.putVarLong(stream);
        block.putByte(kind.code);
        block.putVarLong(region + 1L);
        block.putSignedVarLong(seen[stream] ? tick - lastTick[stream] : tick);
        seen[stream] = true;
        lastTick[stream] = tick;
        block.putSignedVarLong(lo - lastLo);
        lastLo = lo;
        block.putVarLong(hi - lo);
        if (withTruth) {
            block.putSignedVarLong(truth - lo);
        }
        if (kind.payloadCount > 0) {
            block.putSignedVarLong(a);
        }
        if (kind.payloadCount > 1) {
            block.putSignedVarLong(b);
        }
        events++;
        if (block.size() >= BLOCK_BYTES) {
            flushBlock();
        }
    }

    public long events() {
        return events;
    }

    private void flushBlock() throws IOException {
        if (block.size() == 0) {
            return;
        }
        lengthPrefix.clear();
        lengthPrefix.putInt(block.size()).flip();
        channel.write(new ByteBuffer[] {lengthPrefix, ByteBuffer.wrap(block.array(), 0, block.size())});
        block.clear();
        java.util.Arrays.fill(seen, false);
        lastLo = 0;
    }

    @Override
    public void close() throws IOException {
        flushBlock();
        channel.close();
    }
}
