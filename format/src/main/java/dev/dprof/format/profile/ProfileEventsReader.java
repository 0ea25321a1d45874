package dev.dprof.format.profile;

import dev.dprof.format.ByteSource;
import dev.dprof.format.EventKind;
import dev.dprof.format.FormatException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/** Streams a consolidated profile's events in order; see {@link ProfileEventsWriter}. */
public final class ProfileEventsReader implements AutoCloseable {
    private final Path file;
    private final FileChannel channel;
    private final boolean withTruth;
    private final ByteBuffer header = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
    private ByteBuffer block = ByteBuffer.allocate(ProfileEventsWriter.BLOCK_BYTES + 256);
    private final ByteSource in = new ByteSource(ByteBuffer.allocate(0));
    private long[] lastTick = new long[64];
    private boolean[] seen = new boolean[64];
    private long lastLo;

    public ProfileEventsReader(Path file, boolean withTruth) throws IOException, FormatException {
        this.file = file;
        this.channel = FileChannel.open(file, StandardOpenOption.READ);
        this.withTruth = withTruth;
        ByteBuffer magic = ByteBuffer.allocate(ProfileEventsWriter.MAGIC.length);
        while (magic.hasRemaining() && channel.read(magic) >= 0) {
            // fill
        }
        if (!Arrays.equals(magic.array(), ProfileEventsWriter.MAGIC)) {
            channel.close();
            throw new FormatException(file + ": not a dprof profile event file");
        }
        block.limit(0);
        in.reset(block);
    }

    /** Reads the next event into {@code e}; false at the end. */
    public boolean next(ProfileEvent e) throws IOException, FormatException {
        if (!in.hasRemaining() && !nextBlock()) {
            return false;
        }
        int stream = in.readVarInt("stream", Integer.MAX_VALUE);
        if (stream >= seen.length) {
            int size = Math.max(stream + 1, seen.length * 2);
            seen = Arrays.copyOf(seen, size);
            lastTick = Arrays.copyOf(lastTick, size);
        }
        e.stream = stream;
        int code = in.readByte("kind");
        e.kind = EventKind.ofCode(code);
        if (e.kind == null) {
            throw new FormatException(file + ": unknown event kind " + code);
        }
        e.region = (int) in.readVarLong("region") - 1;
        long tick = in.readSignedVarLong("tick");
        e.tick = seen[stream] ? lastTick[stream] + tick : tick;
        seen[stream] = true;
        lastTick[stream] = e.tick;
        e.lo = lastLo + in.readSignedVarLong("lo");
        lastLo = e.lo;
        e.hi = e.lo + in.readVarLong("width");
        e.truth = withTruth ? e.lo + in.readSignedVarLong("truth") : ProfileEvent.NO_TRUTH;
        e.a = e.kind.payloadCount > 0 ? in.readSignedVarLong("payload") : 0;
        e.b = e.kind.payloadCount > 1 ? in.readSignedVarLong("payload") : 0;
        return true;
    }

    private boolean nextBlock() throws IOException, FormatException {
        header.clear();
        while (header.hasRemaining()) {
            if (channel.read(header) < 0) {
                if (header.position() == 0) {
                    return false;
                }
                throw new FormatException(file + ": truncated block header");
            }
        }
        int length = header.flip().getInt();
        if (length <= 0 || length > (1 << 26)) {
            throw new FormatException(file + ": bad block length " + length);
        }
        if (block.capacity() < length) {
            block = ByteBuffer.allocate(length);
        }
        block.clear().limit(length);
        while (block.hasRemaining()) {
            if (channel.read(block) < 0) {
                throw new FormatException(file + ": truncated block");
            }
        }
        block.flip();
        in.reset(block);
        Arrays.fill(seen, false);
        lastLo = 0;
        return true;
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
