package dev.dprof.agent.sink;

import dev.dprof.agent.bootstrap.Rings;
import dev.dprof.format.ByteSink;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.stream.Stream;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.core.time.SystemTimeProvider;
import net.openhft.chronicle.core.time.TimeProvider;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.posix.PosixAPI;
import net.openhft.chronicle.queue.rollcycles.LargeRollCycles;

/**
 * One process's Chronicle queue: every record is one document whose first byte is its
 * {@link dev.dprof.format.RecordType}. Used by the drainer thread only.
 *
 * <p>The queue is memory-mapped, so a full disk would surface as SIGBUS on the first touch of an
 * unbacked page and take the host down. Two guards keep that from happening, whoever fills the
 * disk (docs/CONFIG.md, {@code diskReserveMiB}):
 * <ul>
 * <li><b>The reserve.</b> The sink stops writing, and the drainer counts what it refuses, before
 * the file system's free space would fall below the reserve (by default 5% of the file system,
 * at most 256 MiB and at least {@link DiskReserve#MIN_RESERVE_BYTES}); the ring files share it
 * ({@link Rings#setDiskReserve}).</li>
 * <li><b>Pages allocated before they are touched.</b> Every page Chronicle may touch is allocated
 * through an ordinary {@code write} first, which reports a full disk as an error instead of a
 * fault: the cycle file from its start (Chronicle leaves its index arrays sparse, to be filled
 * later; those bytes are read and written back unchanged by this thread, the only writer) up to
 * {@link #AHEAD_BYTES} past the write position (zeros, where nothing is written yet), again
 * whenever the write position comes within {@link #MARGIN_BYTES} of that end. Another process that fills the disk between two checks
 * makes the next allocation fail and the sink refuse; it can no longer make a page fault.</li>
 * </ul>
 *
 * <p>Implementation notes: what Chronicle may touch beyond the write position in one append is
 * the document and, at most, a new index array (256 KiB at LARGE_DAILY's index count) and its
 * header; {@link #MARGIN_BYTES} covers that with room to spare. The one gap left is the creation
 * of a cycle file, the first or one the day's roll makes (its first append writes the header and
 * the first index arrays' first pages): it is preceded by a free-space check against the reserve,
 * microseconds before (the roll is seen before the append that makes it, from the queue's cycle
 * for the present time).
 */
public final class QueueSink implements AutoCloseable {
    /** How far past the write position pages are allocated, and how close it may come before more are. */
    static final long AHEAD_BYTES = 4L << 20;
    static final long MARGIN_BYTES = 1L << 20;
    private static final long DEFAULT_BLOCK_SIZE = 16L << 20;

    private final Path dir;
    private final SingleChronicleQueue queue;
    private final ExcerptAppender appender;
    private final FileStore store;
    private final long reserve;
    private String refusal;
    /** The cycle file being written, its cycle, and how far its pages are allocated. */
    private FileChannel file;
    private int cycle = Integer.MIN_VALUE;
    private long allocatedTo;
    /** The buffer pages are read into and written back from (direct: no copy in the channel). */
    private final ByteBuffer pages = ByteBuffer.allocateDirect(1 << 20);
    /**
     * Zeros for the pages past the write position, never written to (a channel's write only reads
     * it): filling {@link #pages} with zeros byte by byte before each write was 18% of the
     * drainer's samples with handoffs recorded (BENCHMARKS.md, "Handoffs").
     */
    private final ByteBuffer zeros = ByteBuffer.allocateDirect(1 << 20);
    /**
     * The record, copied into native memory before each append: Chronicle appends native bytes with
     * one memory copy, where from a heap array it copied a long at a time with its checks on each
     * (42% of the drainer's samples with every event a handoff; BENCHMARKS.md, "Handoffs").
     */
    private final Bytes<Void> direct = Bytes.allocateElasticDirect(1 << 16);

    private QueueSink(Path dir, SingleChronicleQueue queue, FileStore store, long reserve) {
        this.dir = dir;
        this.queue = queue;
        this.appender = queue.createAppender();
        this.store = store;
        this.reserve = reserve;
        // Opened on one thread and used on one thread, not always the same one (a test may open it).
        direct.singleThreadedCheckDisabled(true);
    }

    /** Opens (creating) the queue in {@code dir}. */
    static {
        // Chronicle's core loads JNR (about 360 classes and 0.2 s at start) for msync and
        // pre-touching, which this sink never asks for; our Chronicle is relocated, so this choice
        // is ours alone and never the host application's.
        PosixAPI.useNoOpPosixApi();
    }

    /**
     * Opens (creating) a queue in {@code dir} with the default reserve, leaving the ring files'
     * reserve as it is (for a queue other than the run's, such as the drainer's warm-up scratch).
     */
    public static QueueSink open(Path dir) throws IOException {
        return open(dir, -1, false);
    }

    /**
     * Opens (creating) the run's queue in {@code dir}; its reserve is the ring files' too.
     *
     * @param reserveBytes the free space never to be used, or negative for the default
     */
    public static QueueSink open(Path dir, long reserveBytes) throws IOException {
        return open(dir, reserveBytes, true);
    }

    /**
     * Opens (creating) the run's queue in {@code dir} from a drainer in its own process, whose host
     * gave its rings the reserve ({@link DiskReserve#of}) already.
     */
    public static QueueSink openBesideHost(Path dir, long reserveBytes) throws IOException {
        return open(dir, reserveBytes, false);
    }

    private static QueueSink open(Path dir, long reserveBytes, boolean rings) throws IOException {
        return open(dir, reserveBytes, rings, SystemTimeProvider.INSTANCE);
    }

    /** @param time the clock that decides the cycle files (a test moves it to the next day) */
    static QueueSink open(Path dir, long reserveBytes, boolean rings, TimeProvider time) throws IOException {
        Files.createDirectories(dir);
        FileStore store = Files.getFileStore(dir);
        long reserve = reserveBytes >= 0 ? reserveBytes : DiskReserve.of(store);
        if (rings) {
            Rings.setDiskReserve(reserve);
        }
        if (store.getUsableSpace() < reserve + 2 * AHEAD_BYTES) {
            throw new IOException("no space left on " + store + " for " + dir + " (a reserve of "
                    + (reserve >> 20) + " MiB is kept free)");
        }
        SingleChronicleQueue queue = SingleChronicleQueueBuilder.binary(dir)
                .rollCycle(LargeRollCycles.LARGE_DAILY)
                .blockSize(DEFAULT_BLOCK_SIZE)
                .timeProvider(time)
                .build();
        return new QueueSink(dir, queue, store, reserve);
    }

    public Path dir() {
        return dir;
    }

    /** The free space this sink never uses. */
    public long reserve() {
        return reserve;
    }

    /**
     * Appends the sink's bytes as one document.
     *
     * @return false when the record was refused because the disk is (nearly) full
     */
    public boolean append(ByteSink record) {
        if (refusal != null) {
            return false;
        }
        if (!room(record.size(), reserve)) {
            return false;
        }
        write(record);
        return true;
    }

    /**
     * Appends a small closing record even after {@link #append} began refusing: the reserve is
     * there for exactly this, and a run that says how much it lost is worth its few bytes.
     */
    public boolean forceAppend(ByteSink record) {
        if (!room(record.size(), reserve / 8)) {
            return false;
        }
        write(record);
        return true;
    }

    /**
     * Whether a record of {@code size} bytes may be appended, keeping {@code keep} bytes free:
     * allocates more pages first if the write position is near the end of those allocated; sets
     * {@link #refusal} when it cannot.
     */
    private boolean room(int size, long keep) {
        try {
            if (file == null || queue.cycle() != cycle) {
                // The cycle file does not exist yet (the first append, or the first after the day rolled
                // over): Chronicle creates it in this append, and its first pages rest on this check.
                if (store.getUsableSpace() < keep + AHEAD_BYTES) {
                    return refuse("disk full: less than " + (keep >> 20) + " MiB free on " + store + " for " + dir);
                }
                return true;
            }
            long position = appender.wire().bytes().writePosition();
            long need = position + size + MARGIN_BYTES;
            return need <= allocatedTo || allocate(position, need, position + size + AHEAD_BYTES, keep);
        } catch (IOException e) {
            return refuse("cannot check free space for " + dir + ": " + e.getMessage());
        }
    }

    /**
     * Allocates the cycle file's pages up to {@code wanted}, or as far as keeping {@code keep}
     * bytes free allows if that is still at least {@code need}; refuses otherwise.
     */
    private boolean allocate(long position, long need, long wanted, long keep) throws IOException {
        long to = Math.min(wanted, allocatedTo + Math.max(0, store.getUsableSpace() - keep));
        if (to < need) {
            return refuse("disk full: less than " + (keep >> 20) + " MiB would be left free on " + store + " for "
                    + dir);
        }
        try {
            for (long at = allocatedTo; at < to; ) {
                ByteBuffer chunk;
                if (at < position) {
                    // Below the write position Chronicle may have written: those bytes go back unchanged.
                    chunk = pages.clear();
                    chunk.limit((int) Math.min(chunk.capacity(), Math.min(to, position) - at));
                    while (chunk.hasRemaining() && file.read(chunk, at + chunk.position()) >= 0) {
                        // a read may return fewer bytes than asked for
                    }
                    // past the file's end nothing is written yet
                    while (chunk.hasRemaining()) {
                        chunk.put((byte) 0);
                    }
                    chunk.flip();
                } else {
                    // Past the write position nothing is written yet.
                    chunk = zeros.clear();
                    chunk.limit((int) Math.min(chunk.capacity(), to - at));
                }
                while (chunk.hasRemaining()) {
                    at += file.write(chunk, at);
                }
            }
        } catch (IOException e) {
            // Another process took the space between the check and the write: the write says so.
            return refuse("disk full: " + dir + ": " + e.getMessage());
        }
        allocatedTo = to;
        return true;
    }

    private boolean refuse(String why) {
        refusal = why;
        return false;
    }

    /** After an append: a new cycle file (the first, or one rolled to) gets its pages allocated from its start. */
    private void afterWrite() {
        int now = appender.cycle();
        if (now == cycle) {
            return;
        }
        cycle = now;
        try {
            if (file != null) {
                file.close();
            }
            file = FileChannel.open(currentFile(), StandardOpenOption.READ, StandardOpenOption.WRITE);
            allocatedTo = 0;
            long position = appender.wire().bytes().writePosition();
            allocate(position, position, position + AHEAD_BYTES, reserve / 8);
        } catch (IOException e) {
            refuse("cannot allocate the queue file's pages in " + dir + ": " + e.getMessage());
        }
    }

    /** The cycle file just written: the newest {@code .cq4} in the queue's directory. */
    private Path currentFile() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().endsWith(SingleChronicleQueue.SUFFIX))
                    .max(Comparator.comparing(Path::getFileName))
                    .orElseThrow(() -> new IOException("no queue file in " + dir));
        }
    }

    /**
     * One document of the record's bytes. {@code writeBytes} rather than a {@code DocumentContext}:
     * the same document, and 25% less time per append in the drainer of a K-Means worker
     * (BENCHMARKS.md, "Agent overhead").
     */
    private void write(ByteSink record) {
        direct.clear();
        direct.write(record.array(), 0, record.size());
        appender.writeBytes(direct);
        afterWrite();
    }

    /** Why appends are refused, or {@code null} while they are accepted. */
    public String refusal() {
        return refusal;
    }

    @Override
    public void close() {
        appender.close();
        queue.close();
        direct.releaseLast();
        if (file != null) {
            try {
                file.close();
            } catch (IOException e) {
                // nothing was written through it that a close could lose
            }
        }
    }
}
