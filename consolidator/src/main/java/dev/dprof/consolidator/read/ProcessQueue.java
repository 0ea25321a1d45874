package dev.dprof.consolidator.read;

import dev.dprof.format.ByteSource;
import dev.dprof.format.ClockCheck;
import dev.dprof.format.EventBatchReader;
import dev.dprof.format.FormatException;
import dev.dprof.format.IntervalStatistics;
import dev.dprof.format.ProcessEnd;
import dev.dprof.format.ProcessHeader;
import dev.dprof.format.RecordType;
import dev.dprof.format.RegionInfo;
import dev.dprof.format.TcpConnection;
import dev.dprof.format.ThreadInfo;
import dev.dprof.format.ThreadLoss;
import dev.dprof.format.TraceWindow;
import dev.dprof.format.WeavingSummary;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.queue.rollcycles.LargeRollCycles;
import net.openhft.chronicle.wire.DocumentContext;
import net.openhft.posix.PosixAPI;

/**
 * One process's queue, opened read-only: reading never modifies it, so it is safe on the queue
 * of a process that is still running or was killed. A document left half-written by
 * {@code kill -9} is not complete and therefore not visible; reading ends before it and never
 * waits for it. A corrupt document is reported and skipped, and the rest is still read.
 *
 * <p>A process that did not end (no end record) may have left events in its ring files that its
 * queue does not have yet; they are read after the queue's documents ({@link RingRecovery}).
 */
public final class ProcessQueue implements AutoCloseable {
    private final Path dir;
    private final SingleChronicleQueue queue;
    private final ProcessHeader header;
    private final List<String> problems = new ArrayList<>();
    private final RingRecovery recovery;
    private final ProcessLoss loss = new ProcessLoss();
    private byte[] buffer = new byte[1 << 16];
    /** Where the virtual threads' events are; built at the first read, null until then. */
    private VirtualThreadSplit split;
    /** The tailer that fetches documents by index for the cursors of a split process; made when first needed. */
    private ExcerptTailer fetcher;

    static {
        // Chronicle's core loads JNR (about 360 classes, 0.2 s of a consolidation's start) for msync
        // and pre-touching, which reading never uses.
        PosixAPI.useNoOpPosixApi();
    }

    /** The files Chronicle reads: the queue's own, or a repaired copy of them ({@link QueueFiles}). */
    private final QueueFiles.Prepared files;

    private ProcessQueue(Path dir, QueueFiles.Prepared files, SingleChronicleQueue queue, ProcessHeader header) {
        this.dir = dir;
        this.files = files;
        this.queue = queue;
        this.header = header;
        problems.addAll(files.problems);
        // The tally drops what it finds corrupt: read() reports it.
        this.recovery = RingRecovery.of(dir, header,
                visitor -> readQueue(visitor, new EventBatchReader(), Long.MAX_VALUE, new ArrayList<>()), files.cut,
                problems);
    }

    /**
     * Whether {@code dir} looks like a process's queue directory: it has Chronicle's
     * {@code metadata.cq4t}, or, that file being lost, queue files ({@code *.cq4}).
     */
    public static boolean isQueue(Path dir) {
        if (Files.isRegularFile(dir.resolve(QueueFiles.METADATA))) {
            return true;
        }
        if (!Files.isDirectory(dir)) {
            return false;
        }
        try (java.nio.file.DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*" + QueueFiles.SUFFIX)) {
            return files.iterator().hasNext();
        } catch (java.io.IOException e) {
            return false;
        }
    }

    public static ProcessQueue open(Path dir) throws ReadException {
        if (!Files.isDirectory(dir)) {
            throw new ReadException(dir + ": no such directory");
        }
        if (!isQueue(dir)) {
            throw new ReadException(dir + ": not a dprof process queue (no metadata.cq4t, no .cq4 file)");
        }
        QueueFiles.Prepared files = QueueFiles.prepare(dir);
        SingleChronicleQueue queue;
        try {
            // A lock left by a dead writer is taken over after the timeout: wait 1 s at most, not Chronicle's 10.
            queue = SingleChronicleQueueBuilder.binary(files.open).readOnly(!files.writable).timeoutMS(LOCK_TIMEOUT_MS)
                    .rollCycle(LargeRollCycles.LARGE_DAILY).build();
        } catch (Exception | InternalError e) {
            // Exception, not RuntimeException: Chronicle throws some checked ones undeclared (StreamCorruptedException)
            files.close();
            throw new ReadException(dir + ": cannot open the queue" + damage(files) + " (" + describe(e) + ")");
        }
        try (ExcerptTailer tailer = queue.createTailer();
             DocumentContext dc = tailer.readingDocument()) {
            if (!dc.isPresent()) {
                throw new ReadException(dir + ": empty queue, the process header is missing" + damage(files));
            }
            ByteSource in = new ByteSource(ByteBuffer.wrap(copy(dc.wire().bytes())));
            if (in.readByte("record type") != RecordType.HEADER) {
                throw new ReadException(dir + ": the first record is not a process header" + damage(files));
            }
            return new ProcessQueue(dir, files, queue, ProcessHeader.decode(in));
        } catch (FormatException e) {
            closeAll(queue, files);
            throw new ReadException(dir + ": process header: " + e.getMessage());
        } catch (ReadException e) {
            closeAll(queue, files);
            throw e;
        } catch (Exception | InternalError e) {
            closeAll(queue, files);
            throw new ReadException(dir + ": the process header is unreadable" + damage(files) + " (" + describe(e) + ")");
        }
    }

    /** Chronicle's lock timeout for reading (the builder's {@code timeoutMS}, default 10 s). */
    static final long LOCK_TIMEOUT_MS = 1000;

    private static void closeAll(SingleChronicleQueue queue, QueueFiles.Prepared files) {
        try {
            queue.close();
        } catch (RuntimeException e) {
            // closing what failed to read: nothing more to say
        }
        files.close();
    }

    /** "; damaged: …" naming what the file check found, or empty. */
    private static String damage(QueueFiles.Prepared files) {
        return files.problems.isEmpty() ? "" : "; " + String.join("; ", files.problems);
    }

    private static String describe(Throwable e) {
        return Damage.describe(e);
    }

    public Path dir() {
        return dir;
    }

    public ProcessHeader header() {
        return header;
    }

    /** Problems met while reading (corrupt documents that were skipped), one line each. */
    public List<String> problems() {
        return problems;
    }

    /**
     * What was recovered from the ring files of a process that did not end, as one line; empty if
     * nothing was.
     */
    public Optional<String> recovered() {
        return recovery.events() == 0 ? Optional.empty() : Optional.of(recovery.events() + " events of "
                + recovery.threads() + (recovery.threads() == 1 ? " thread" : " threads")
                + " recovered from its ring files");
    }

    /**
     * What the process lost, counted by the last {@link #read} (docs/FORMAT.md, "Counting what was
     * lost"): every command that reports a loss takes it from here.
     */
    public ProcessLoss.Counted loss() {
        return loss.count(recovery);
    }

    /**
     * A cursor over the batches of one thread, whatever its id (a damaged one may be negative). A
     * virtual thread's cursor yields its events from its carriers' batches, a carrier's cursor only
     * its own ({@link VirtualThreadSplit}). The cursors of one queue are used from one thread.
     */
    public BatchCursor batches(long thread) {
        VirtualThreadSplit s = split();
        if (s.any()) {
            return BatchCursor.split(this, s, thread);
        }
        return new BatchCursor(queue.createTailer(), recovery, thread);
    }

    /**
     * Reads every record after the header, in written order; a virtual thread's events come as
     * batches of its own, in its order, and a carrier's batches hold only the carrier's own events
     * ({@link VirtualThreadSplit}).
     */
    public void read(RecordVisitor visitor) {
        VirtualThreadSplit s = split();
        SplitVisitor splitting = s.any() ? new SplitVisitor(visitor, s) : null;
        RecordVisitor target = counting(splitting == null ? visitor : splitting);
        loss.clear();
        if (files.cut) {
            loss.cut();
        }
        EventBatchReader batch = new EventBatchReader();
        readQueue(target, batch, s.any() ? s.lastIndex() : recovery.lastIndex(), problems);
        ByteSource in = new ByteSource(ByteBuffer.allocate(0));
        int k = 0;
        for (byte[] document : recovery.documents()) {
            in.reset(ByteBuffer.wrap(document));
            try {
                dispatch(in, batch, target, loss);
            } catch (FormatException e) {
                problems.add(dir + ": recovered record " + k + " skipped: " + e.getMessage());
            }
            k++;
        }
        if (splitting != null) {
            try {
                splitting.finish();
            } catch (FormatException e) {
                problems.add(dir + ": virtual threads: " + e.getMessage());
            }
        }
    }

    /** {@code visitor}, with the loss and end records also counted in {@link #loss}. */
    private RecordVisitor counting(RecordVisitor visitor) {
        return new RecordVisitor.Forwarding(visitor) {
            @Override
            public void loss(ThreadLoss threadLoss) {
                loss.loss(threadLoss);
                next.loss(threadLoss);
            }

            @Override
            public void end(ProcessEnd end) {
                loss.end(end);
                next.end(end);
            }
        };
    }

    /**
     * The index of the virtual threads' pieces, built on first use by one pass over the batches'
     * first bytes and communication indexes (only a JVM with virtual threads can have recorded any).
     */
    private VirtualThreadSplit split() {
        if (split == null) {
            split = new VirtualThreadSplit();
            if (mayHaveVirtualThreads(header.jvm())) {
                indexVirtualThreads(split);
            }
        }
        return split;
    }

    /** Whether a JVM of this version string ({@code Runtime.version()}) has virtual threads (21 and later). */
    static boolean mayHaveVirtualThreads(String jvm) {
        try {
            return Runtime.Version.parse(jvm).feature() >= 21;
        } catch (IllegalArgumentException e) {
            return true;
        }
    }

    private void indexVirtualThreads(VirtualThreadSplit index) {
        EventBatchReader batch = new EventBatchReader();
        long last = Long.MIN_VALUE;
        try (ExcerptTailer tailer = queue.createTailer()) {
            while (true) {
                try (DocumentContext dc = tailer.readingDocument()) {
                    if (!dc.isPresent() || dc.index() > recovery.lastIndex()) {
                        break;
                    }
                    last = dc.index();
                    Bytes<?> bytes = dc.wire().bytes();
                    int length = (int) bytes.readRemaining();
                    if (length == 0 || bytes.readUnsignedByte(bytes.readPosition()) != RecordType.BATCH) {
                        continue;
                    }
                    if (buffer.length < length) {
                        buffer = new byte[Math.max(length, buffer.length * 2)];
                    }
                    bytes.read(buffer, 0, length);
                    index.add(last, batch.reset(buffer, 1, length - 1));
                } catch (FormatException e) {
                    // read() reports the record; its events are nobody's
                }
            }
        }
        index.indexedUpTo(last);
        List<byte[]> recovered = recovery.documents();
        for (int k = 0; k < recovered.size(); k++) {
            byte[] document = recovered.get(k);
            try {
                if (document[0] == RecordType.BATCH) {
                    index.add(recoveredAddress(k), batch.reset(document, 1, document.length - 1));
                }
            } catch (FormatException e) {
                // reported by read()
            }
        }
        index.finish();
    }

    /** The address of recovered document {@code k}: below every queue index, which is never negative. */
    static long recoveredAddress(int k) {
        return -1L - k;
    }

    /**
     * Copies the batch document at {@code address} (a queue index, or a {@link #recoveredAddress})
     * into {@code into}, growing it as needed; returns the buffer holding it (its type byte first)
     * and its length in {@code length[0]}.
     */
    synchronized byte[] fetch(long address, byte[] into, int[] length) throws FormatException {
        if (address < 0) {
            byte[] document = recovery.documents().get((int) (-1L - address));
            length[0] = document.length;
            return document;
        }
        if (fetcher == null) {
            fetcher = queue.createTailer();
        }
        if (!fetcher.moveToIndex(address)) {
            throw new FormatException("queue document " + Long.toHexString(address) + " is gone");
        }
        try (DocumentContext dc = fetcher.readingDocument()) {
            if (!dc.isPresent()) {
                throw new FormatException("queue document " + Long.toHexString(address) + " is gone");
            }
            Bytes<?> bytes = dc.wire().bytes();
            int n = (int) bytes.readRemaining();
            byte[] out = into.length < n ? new byte[Math.max(n, into.length * 2)] : into;
            bytes.read(out, 0, n);
            length[0] = n;
            return out;
        }
    }

    /**
     * Reads the queue's records after the header, up to the document at {@code lastIndex}; a corrupt
     * one goes to {@code problems}. Returns the index of the last document read, or
     * {@link Long#MIN_VALUE} if there was none.
     */
    private long readQueue(RecordVisitor visitor, EventBatchReader batch, long lastIndex, List<String> problems) {
        ByteSource in = new ByteSource(ByteBuffer.allocate(0));
        long last = Long.MIN_VALUE;
        long index = 0;
        try (ExcerptTailer tailer = queue.createTailer()) {
            while (true) {
                int length;
                try (DocumentContext dc = tailer.readingDocument()) {
                    if (!dc.isPresent() || dc.index() > lastIndex) {
                        return last;
                    }
                    last = dc.index();
                    Bytes<?> bytes = dc.wire().bytes();
                    length = (int) bytes.readRemaining();
                    if (buffer.length < length) {
                        buffer = new byte[Math.max(length, buffer.length * 2)];
                    }
                    bytes.read(buffer, 0, length);
                }
                if (index++ == 0) {
                    continue;
                }
                in.reset(ByteBuffer.wrap(buffer, 0, length));
                try {
                    dispatch(in, batch, visitor, loss);
                } catch (FormatException e) {
                    problems.add(dir + ": record " + (index - 1) + " skipped: " + e.getMessage());
                }
            }
        } catch (Exception | InternalError e) {
            loss.hidden();
            problems.add(dir + ": record " + index + " and after unreadable (" + describe(e) + "); left out, uncounted");
            return last;
        }
    }

    /**
     * Hands one record to {@code visitor}; a corrupt batch's events not yet handed over are counted
     * in {@code loss} (all of them if its count cannot be read: then the loss is hidden).
     */
    private static void dispatch(ByteSource in, EventBatchReader batch, RecordVisitor visitor, ProcessLoss loss)
            throws FormatException {
        int type = in.readByte("record type");
        switch (type) {
            case RecordType.REGION -> visitor.region(RegionInfo.decode(in));
            case RecordType.THREAD -> visitor.thread(ThreadInfo.decode(in));
            case RecordType.BATCH -> dispatchBatch(in, batch, visitor, loss);
            case RecordType.END -> visitor.end(ProcessEnd.decode(in));
            case RecordType.WEAVING -> visitor.weaving(WeavingSummary.decode(in));
            case RecordType.CLOCK_CHECK -> visitor.clockCheck(ClockCheck.decode(in));
            case RecordType.LOSS -> visitor.loss(ThreadLoss.decode(in));
            case RecordType.CONNECTION -> visitor.connection(TcpConnection.decode(in));
            case RecordType.STATISTICS -> visitor.statistics(IntervalStatistics.decode(in));
            case RecordType.TRACE_WINDOW -> visitor.traceWindow(TraceWindow.decode(in));
            case RecordType.HEADER -> throw new FormatException("a second process header");
            default -> throw new FormatException("unknown record type " + type);
        }
    }

    private static void dispatchBatch(ByteSource in, EventBatchReader batch, RecordVisitor visitor, ProcessLoss loss)
            throws FormatException {
        try {
            batch.reset(in);
        } catch (FormatException e) {
            loss.hidden();
            throw e;
        }
        int total = batch.count();
        try {
            visitor.batch(batch);
        } catch (FormatException e) {
            // next() counts the event it fails on as taken; a failure in the communication index takes none.
            int remaining = batch.count();
            loss.corrupt(remaining < total ? remaining + 1 : total);
            throw new FormatException(e.getMessage() + " (batch of thread " + batch.threadId() + ", "
                    + (remaining < total ? remaining + 1 : total) + " of its " + total + " events left out)");
        }
    }

    private static byte[] copy(Bytes<?> bytes) {
        byte[] out = new byte[(int) bytes.readRemaining()];
        bytes.read(out);
        return out;
    }

    @Override
    public void close() {
        try {
            if (fetcher != null) {
                fetcher.close();
            }
            queue.close();
        } finally {
            files.close();
        }
    }
}
