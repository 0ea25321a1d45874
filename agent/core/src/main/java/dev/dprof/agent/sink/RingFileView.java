package dev.dprof.agent.sink;

import dev.dprof.format.EventBatchEncoder;
import dev.dprof.format.RingFile;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A live ring file as the drainer process sees it: a shared mapping of the file the host's probes
 * store into (docs/FORMAT.md, "Ring files"), read as the host's own drainer reads the ring in
 * memory — {@code head} and {@code dead} with acquire, {@code tail} handed back with release once
 * the slots are in the queue — so the host's producer reuses a slot only after this process has
 * appended it. One drainer thread uses an instance.
 */
final class RingFileView {
    private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INTS = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final int SLOT = EventBatchEncoder.SLOT_BYTES;

    private final Path file;
    private final MappedByteBuffer map;
    private final long mask;
    private final long threadId;
    private final String name;
    private final boolean agentOwn;
    /** The loss count last written to the queue for this ring. */
    long lossWritten;

    private RingFileView(Path file, MappedByteBuffer map, long events, long threadId, String name, boolean agentOwn) {
        this.file = file;
        this.map = map;
        this.mask = events - 1;
        this.threadId = threadId;
        this.name = name;
        this.agentOwn = agentOwn;
    }

    /**
     * Maps a ring file; null while the ring is being made or not yet bound to its thread (try again
     * on a later pass).
     *
     * @throws IOException for a file that is not a ring file of this version
     */
    static RingFileView open(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long size = ch.size();
            if (size < RingFile.HEADER_BYTES) {
                return null;
            }
            MappedByteBuffer map = ch.map(FileChannel.MapMode.READ_WRITE, 0, size);
            map.order(ByteOrder.LITTLE_ENDIAN);
            long magic = (long) LONGS.getAcquire(map, RingFile.MAGIC_AT);
            if (magic == 0) {
                return null;
            }
            if (magic != RingFile.MAGIC || map.getInt(RingFile.VERSION_AT) != RingFile.VERSION
                    || map.getInt(RingFile.SLOT_BYTES_AT) != SLOT) {
                throw new IOException(file + ": not a ring file of version " + RingFile.VERSION);
            }
            long events = map.getLong(RingFile.EVENTS_AT);
            if (events < 2 || (events & (events - 1)) != 0 || size < RingFile.HEADER_BYTES + events * SLOT) {
                throw new IOException(file + ": inconsistent ring (" + events + " slots in " + size + " bytes)");
            }
            long tid = (long) LONGS.getAcquire(map, RingFile.THREAD_ID_AT);
            if (tid < 0) {
                return null;
            }
            int length = Math.min(Math.max(map.getInt(RingFile.NAME_LENGTH_AT), 0), RingFile.NAME_MAX);
            byte[] name = new byte[length];
            map.get(RingFile.NAME_AT, name);
            return new RingFileView(file, map, events, tid, new String(name, StandardCharsets.UTF_8),
                    (map.getInt(RingFile.FLAGS_AT) & RingFile.FLAG_PRIVATE) != 0);
        }
    }

    Path file() {
        return file;
    }

    long threadId() {
        return threadId;
    }

    String name() {
        return name;
    }

    boolean agentOwn() {
        return agentOwn;
    }

    long head() {
        return (long) LONGS.getAcquire(map, RingFile.HEAD_AT);
    }

    long tail() {
        return map.getLong(RingFile.TAIL_AT);
    }

    long lost() {
        return (long) LONGS.getOpaque(map, RingFile.LOST_AT);
    }

    /** Whether the thread has exited; once seen true, {@link #head} is final. */
    boolean dead() {
        return (int) INTS.getAcquire(map, RingFile.DEAD_AT) != 0;
    }

    /**
     * Copies up to {@code max} slots from the tail, and no further than {@code limit}, into
     * {@code scratch} from its start; returns how many.
     */
    int copy(ByteBuffer scratch, long limit, int max) {
        long tail = tail();
        long n = Math.min(Math.min(limit - tail, max), scratch.capacity() / SLOT);
        if (n <= 0) {
            return 0;
        }
        scratch.clear(); // absolute puts stop at the limit a previous batch left
        for (long i = 0; i < n; i++) {
            int from = RingFile.HEADER_BYTES + (int) ((tail + i) & mask) * SLOT;
            scratch.put((int) i * SLOT, map, from, SLOT);
        }
        scratch.clear().limit((int) n * SLOT);
        return (int) n;
    }

    /** The header of the slot at ring index {@code index} (one the producer will not write again). */
    int headerAt(long index) {
        return map.getInt(RingFile.HEADER_BYTES + (int) (index & mask) * SLOT + 8);
    }

    /** Hands {@code n} slots back to the host's producer: they are in the queue. */
    void consume(int n) {
        LONGS.setRelease(map, RingFile.TAIL_AT, tail() + n);
    }
}
