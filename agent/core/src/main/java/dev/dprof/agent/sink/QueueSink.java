package dev.dprof.agent.sink;

import dev.dprof.format.ByteSink;
import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import net.openhft.chronicle.bytes.Bytes;
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
 * unbacked page and take the host down. The sink therefore checks the free space of its file
 * store before every append and refuses (the caller counts the loss) once it falls below
 * {@link #RESERVE_BYTES} plus what is about to be written; Chronicle's index pages fit in that
 * reserve.
 */
public final class QueueSink implements AutoCloseable {
    static final long RESERVE_BYTES = 8L << 20;
    /** Bytes appended between two checks of the free space: an eighth of the reserve. */
    static final long CHECK_EVERY_BYTES = RESERVE_BYTES / 8;
    private static final long DEFAULT_BLOCK_SIZE = 16L << 20;

    private final Path dir;
    private final SingleChronicleQueue queue;
    private final ExcerptAppender appender;
    private final FileStore store;
    private String refusal;
    private long lastFree;
    private long unchecked = Long.MAX_VALUE / 2;
    /** The record's array, wrapped once (again only when the record's buffer grew). */
    private byte[] wrapped;
    private Bytes<byte[]> wrapper;

    private QueueSink(Path dir, SingleChronicleQueue queue, FileStore store) {
        this.dir = dir;
        this.queue = queue;
        this.appender = queue.createAppender();
        this.store = store;
    }

    /** Opens (creating) the queue in {@code dir}. */
    static {
        // Chronicle's core loads JNR (about 360 classes and 0.2 s at start) for msync and
        // pre-touching, which this sink never asks for; our Chronicle is relocated, so this choice
        // is ours alone and never the host application's.
        PosixAPI.useNoOpPosixApi();
    }

    public static QueueSink open(Path dir) throws IOException {
        Files.createDirectories(dir);
        FileStore store = Files.getFileStore(dir);
        if (store.getUsableSpace() < 2 * RESERVE_BYTES) {
            throw new IOException("no space left on " + store + " for " + dir);
        }
        SingleChronicleQueue queue = SingleChronicleQueueBuilder.binary(dir)
                .rollCycle(LargeRollCycles.LARGE_DAILY)
                .blockSize(DEFAULT_BLOCK_SIZE)
                .build();
        return new QueueSink(dir, queue, store);
    }

    public Path dir() {
        return dir;
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
        // The free space is asked for only after CHECK_EVERY_BYTES were written (a system call and
        // an allocation each time); what is written in between stays far inside the reserve.
        if (unchecked + record.size() > CHECK_EVERY_BYTES || lastFree - unchecked < RESERVE_BYTES + 2L * record.size()) {
            try {
                lastFree = store.getUsableSpace();
                unchecked = 0;
            } catch (IOException e) {
                refusal = "cannot check free space for " + dir + ": " + e.getMessage();
                return false;
            }
            if (lastFree < RESERVE_BYTES + 2L * record.size()) {
                refusal = "disk full: less than " + (RESERVE_BYTES >> 20) + " MiB free on " + store + " for " + dir;
                return false;
            }
        }
        unchecked += record.size();
        write(record);
        return true;
    }

    /**
     * Appends a small closing record even after {@link #append} began refusing: the reserve is
     * there for exactly this, and a run that says how much it lost is worth its few bytes.
     */
    public boolean forceAppend(ByteSink record) {
        try {
            if (store.getUsableSpace() < RESERVE_BYTES / 8 + record.size()) {
                return false;
            }
        } catch (IOException e) {
            return false;
        }
        write(record);
        return true;
    }

    /**
     * One document of the record's bytes. {@code writeBytes} rather than a {@code DocumentContext}:
     * the same document, and 25% less time per append in the drainer of a K-Means worker
     * (BENCHMARKS.md, "Agent overhead").
     */
    private void write(ByteSink record) {
        if (wrapped != record.array()) {
            wrapped = record.array();
            wrapper = Bytes.wrapForRead(wrapped);
        }
        wrapper.readPositionRemaining(0, record.size());
        appender.writeBytes(wrapper);
    }

    /** Why appends are refused, or {@code null} while they are accepted. */
    public String refusal() {
        return refusal;
    }

    @Override
    public void close() {
        appender.close();
        queue.close();
    }
}
