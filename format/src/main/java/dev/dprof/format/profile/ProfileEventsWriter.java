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
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * Writes a consolidated profile's events in their global causal order (layout in
 * {@code docs/FORMAT.md}, "Consolidated profile"): a magic line, then blocks of at most
 * {@value #BLOCK_BYTES} bytes, each {@code [length:int32 LE][events]}. Within a block, {@code lo}
 * is a delta from the previous event's {@code lo} and {@code tick} a delta from the previous
 * tick of the same stream; both reset at every block, so a reader can start at any block.
 *
 * <h2>Implementation notes</h2>
 * The file is written by a thread of its own: finished blocks, each with its length prefix, are
 * gathered in one of {@value #CHUNKS} direct buffers of {@value #CHUNK_BYTES} bytes, and a full
 * buffer goes to that thread, which writes it while the caller encodes into the next. So the
 * caller (the consolidator's merge, one thread for the whole run) pays for encoding and one copy
 * per block, not for the system calls and the page cache's allocations — about 0.1 s for the
 * 220 MB of 20 M events. A buffer is handed over per {@value #CHUNK_BYTES} bytes, not per block,
 * so the threads meet a few hundred times per run. A failed write is reported by the next
 * {@link #write} or by {@link #close}; the bytes are the same as written synchronously.
 */
public final class ProfileEventsWriter implements AutoCloseable {
    public static final byte[] MAGIC = "DPROFEV1\n".getBytes(StandardCharsets.US_ASCII);
    static final int BLOCK_BYTES = 1 << 16;
    /** The longest event: one byte for the kind, seven varints. */
    static final int MAX_EVENT_BYTES = 1 + 7 * ByteSink.MAX_VARINT_BYTES;

    static final int CHUNK_BYTES = 1 << 20;
    static final int CHUNKS = 3;
    /** Handed to the file thread to end it. */
    private static final ByteBuffer END = ByteBuffer.allocate(0);

    private final Path file;
    private final FileChannel channel;
    private final boolean withTruth;
    private final BlockingQueue<ByteBuffer> free = new ArrayBlockingQueue<>(CHUNKS);
    private final BlockingQueue<ByteBuffer> full = new ArrayBlockingQueue<>(CHUNKS + 1);
    private final Thread fileThread;
    private volatile IOException failure;
    private ByteBuffer chunk;
    private boolean closed;
    private final ByteSink block = new ByteSink(BLOCK_BYTES + MAX_EVENT_BYTES);
    private long[] lastTick = new long[64];
    private boolean[] seen = new boolean[64];
    private long lastLo;
    private long events;

    public ProfileEventsWriter(Path file, boolean withTruth) throws IOException {
        this.file = file;
        this.channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING);
        this.withTruth = withTruth;
        for (int i = 0; i < CHUNKS; i++) {
            free.add(ByteBuffer.allocateDirect(CHUNK_BYTES + 4 + BLOCK_BYTES + MAX_EVENT_BYTES).order(ByteOrder.LITTLE_ENDIAN));
        }
        chunk = free.remove();
        chunk.put(MAGIC);
        fileThread = new Thread(this::writeChunks, "dprof-events-file");
        fileThread.setDaemon(true);
        fileThread.start();
    }

    /** The file thread: writes every full chunk in order until {@link #END}; after a failure it only recycles them. */
    private void writeChunks() {
        try {
            for (ByteBuffer c = full.take(); c != END; c = full.take()) {
                c.flip();
                try {
                    while (failure == null && c.hasRemaining()) {
                        channel.write(c);
                    }
                } catch (IOException e) {
                    failure = e;
                }
                c.clear();
                free.add(c);
            }
        } catch (InterruptedException e) {
            failure = new IOException("interrupted while writing " + file);
        }
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
        chunk.putInt(block.size()).put(block.array(), 0, block.size());
        block.clear();
        java.util.Arrays.fill(seen, false);
        lastLo = 0;
        if (chunk.position() >= CHUNK_BYTES) {
            handOver(chunk);
            chunk = take(free);
        }
    }

    private void handOver(ByteBuffer c) throws IOException {
        checkFailure();
        try {
            full.put(c);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while writing " + file);
        }
    }

    private ByteBuffer take(BlockingQueue<ByteBuffer> queue) throws IOException {
        try {
            return queue.take();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while writing " + file);
        }
    }

    private void checkFailure() throws IOException {
        IOException e = failure;
        if (e != null) {
            throw new IOException("writing " + file + ": " + e.getMessage(), e);
        }
    }

    /** Writes what is left, waits for the file thread and closes the file; reports a failed write. */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            flushBlock();
            if (chunk.position() > 0) {
                handOver(chunk);
            }
            handOver(END);
            fileThread.join();
            checkFailure();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while writing " + file);
        } finally {
            fileThread.interrupt();
            channel.close();
        }
    }
}
