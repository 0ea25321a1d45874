package dev.dprof.format.profile;

import dev.dprof.format.ByteSink;
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

    private final FileChannel channel;
    private final boolean withTruth;
    private final ByteSink block = new ByteSink(BLOCK_BYTES + 128);
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
        if (e.stream >= seen.length) {
            int size = Math.max(e.stream + 1, seen.length * 2);
            seen = java.util.Arrays.copyOf(seen, size);
            lastTick = java.util.Arrays.copyOf(lastTick, size);
        }
        block.writeVarLong(e.stream);
        block.writeByte(e.kind.code);
        block.writeVarLong(e.region + 1L);
        block.writeSignedVarLong(seen[e.stream] ? e.tick - lastTick[e.stream] : e.tick);
        seen[e.stream] = true;
        lastTick[e.stream] = e.tick;
        block.writeSignedVarLong(e.lo - lastLo);
        lastLo = e.lo;
        block.writeVarLong(e.hi - e.lo);
        if (withTruth) {
            block.writeSignedVarLong(e.truth - e.lo);
        }
        if (e.kind.payloadCount > 0) {
            block.writeSignedVarLong(e.a);
        }
        if (e.kind.payloadCount > 1) {
            block.writeSignedVarLong(e.b);
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
