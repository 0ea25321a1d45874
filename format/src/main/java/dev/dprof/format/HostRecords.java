package dev.dprof.format;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.zip.CRC32;

/**
 * The host's records: what a process's drainer writes to its queue that the rings do not hold (the
 * header, regions, virtual threads' names, TCP connections, the clock check, the weaving summary),
 * kept by the host in memory-mapped files beside its ring files for a drainer in another process
 * to append (docs/DESIGN.md, "The drainer in its own process"; docs/FORMAT.md, "Host records").
 * Each file is a segment: a header with the bytes the host has published ({@code committed}) and
 * the bytes the drainer has appended to the queue ({@code consumed}), then records of
 * {@code [length:u32][crc32:u32][bytes]}. A record's bytes are a queue document as the drainer
 * writes it, or one of the three records only this channel has ({@link #AGENT_THREADS},
 * {@link #MARK}, {@link #HOST_END}).
 *
 * <p>Like the ring files, the segments are shared mappings, so what the host published survives a
 * {@code kill -9} of the host; a drainer that died too leaves {@link #read} what it had not appended.
 *
 * <h2>Implementation notes</h2>
 * {@code committed} and {@code consumed} are stored with release and loaded with acquire semantics
 * (a {@link VarHandle} on the mapping, whose fields are 8-byte aligned): a reader that sees
 * {@code committed} cover a record sees its bytes. The checksum is for what no ordering covers:
 * pages of a machine that crashed, and bytes damaged at rest.
 */
public final class HostRecords {
    public static final String SUFFIX = ".records";

    public static final int COMMITTED_AT = 0;
    public static final int CONSUMED_AT = 8;
    public static final int MAGIC_AT = 16;
    public static final int VERSION_AT = 24;
    public static final int SEALED_AT = 28;
    /** Records start here. */
    public static final int HEADER_BYTES = 64;
    /** A record's length and checksum, before its bytes. */
    public static final int RECORD_HEAD_BYTES = 8;
    /** "DPROFHRC" in little endian; written last when a segment is made. */
    public static final long MAGIC = 0x4352_4846_4F52_5044L;
    public static final int VERSION = 1;
    /** A segment's size, unless one record needs more. */
    public static final int SEGMENT_BYTES = 1 << 20;

    /** The ids of the agent's own threads so far (all of them each time): their rings are not the application's. */
    public static final int AGENT_THREADS = 'a';
    /** Each ring's thread id and head, read before the records preceding this mark were published. */
    public static final int MARK = 'm';
    /** What only the host counts at its end: failed probes, the events all its rings dropped, its end tick. */
    public static final int HOST_END = 'x';

    private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INTS = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    private HostRecords() {
    }

    /** The file of segment {@code index} in {@code dir}. */
    public static Path segment(Path dir, int index) {
        return dir.resolve(index + SUFFIX);
    }

    /** The checksum of a record's bytes. */
    static int checksum(ByteBuffer bytes) {
        CRC32 crc = new CRC32();
        crc.update(bytes.duplicate());
        return (int) crc.getValue();
    }

    /** Encodes the agent's thread ids ({@link #AGENT_THREADS}). */
    public static void encodeAgentThreads(ByteSink out, long[] ids) {
        out.writeByte(AGENT_THREADS);
        out.writeVarLong(ids.length);
        for (long id : ids) {
            out.writeVarLong(id);
        }
    }

    /**
     * Encodes a {@link #MARK}: rings by thread id, each with its head and, for a thread that has
     * ended while its ring does not say so yet, the tick its end is stamped with (else 0).
     */
    public static void encodeMark(ByteSink out, long[] threadIds, long[] heads, long[] endTicks, int count) {
        out.writeByte(MARK);
        out.writeVarLong(count);
        for (int i = 0; i < count; i++) {
            out.writeVarLong(threadIds[i]);
            out.writeVarLong(heads[i]);
            out.writeVarLong(endTicks[i]);
        }
    }

    /** One ring of a {@link #MARK}. */
    public record Mark(long threadId, long head, long endTick) {
    }

    /** Decodes a {@link #MARK} record after its type byte. */
    public static List<Mark> decodeMark(ByteSource in) throws FormatException {
        long n = in.readVarLong("mark count");
        if (n < 0 || n > in.remaining()) {
            throw new FormatException("mark count " + n + " exceeds the record");
        }
        List<Mark> marks = new ArrayList<>((int) n);
        for (int i = 0; i < n; i++) {
            marks.add(new Mark(in.readVarLong("marked thread"), in.readVarLong("marked head"),
                    in.readVarLong("end tick")));
        }
        return marks;
    }

    /** Encodes the host's end counts ({@link #HOST_END}). */
    public static void encodeHostEnd(ByteSink out, HostEnd end) {
        out.writeByte(HOST_END);
        out.writeVarLong(end.failedProbes());
        out.writeVarLong(end.ringLost());
        out.writeVarLong(end.endTick());
    }

    /**
     * What only the host counts at its end.
     *
     * @param failedProbes probes that threw (their events are lost)
     * @param ringLost     the events every ring dropped, the rings already freed included
     * @param endTick      the host's clock after its last mark: the end record's tick
     */
    public record HostEnd(long failedProbes, long ringLost, long endTick) {
        /** Decodes a {@link #HOST_END} record after its type byte. */
        public static HostEnd decode(ByteSource in) throws FormatException {
            return new HostEnd(in.readVarLong("failed probes"), in.readVarLong("ring loss"), in.readVarLong("end tick"));
        }
    }

    /** Decodes an {@link #AGENT_THREADS} record after its type byte. */
    public static long[] decodeAgentThreads(ByteSource in) throws FormatException {
        long n = in.readVarLong("agent thread count");
        if (n < 0 || n > in.remaining()) {
            throw new FormatException("agent thread count " + n + " exceeds the record");
        }
        long[] ids = new long[(int) n];
        for (int i = 0; i < n; i++) {
            ids[i] = in.readVarLong("agent thread id");
        }
        return ids;
    }

    /**
     * Appends records to the segments of one directory; one process writes them. Each segment's
     * pages are allocated through ordinary writes before it is mapped, and only while the file
     * system keeps the reserve free: a full disk is an {@link IOException} here, never a
     * {@code SIGBUS} in a store to an unbacked page.
     */
    public static final class Writer implements AutoCloseable {
        private final Path dir;
        private final long reserve;
        private final CRC32 crc = new CRC32();
        private int index = -1;
        private MappedByteBuffer map;
        /** Where the next record goes, from the segment's start. */
        private int position;

        /**
         * @param reserveBytes free space a new segment must leave on the file system
         */
        public Writer(Path dir, long reserveBytes) {
            this.dir = dir;
            this.reserve = reserveBytes;
        }

        /**
         * Appends the sink's bytes as one record and publishes it.
         *
         * @throws IOException if a new segment was needed and could not be made; nothing of the record is written
         */
        public synchronized void append(ByteSink record) throws IOException {
            int size = record.size();
            if (size == 0) {
                throw new IllegalArgumentException("an empty record: every record starts with its type");
            }
            if (map == null || (long) position + RECORD_HEAD_BYTES + size > map.capacity()) {
                next(size);
            }
            crc.reset();
            crc.update(record.array(), 0, size);
            map.putInt(position, size);
            map.putInt(position + 4, (int) crc.getValue());
            map.put(position + RECORD_HEAD_BYTES, record.array(), 0, size);
            position += RECORD_HEAD_BYTES + size;
            LONGS.setRelease(map, COMMITTED_AT, (long) (position - HEADER_BYTES));
        }

        /** Makes the next segment, big enough for a record of {@code size}, then seals the current one. */
        private void next(int size) throws IOException {
            long bytes = Math.max(SEGMENT_BYTES, roundToPage((long) HEADER_BYTES + RECORD_HEAD_BYTES + size));
            if (bytes > Integer.MAX_VALUE) {
                throw new IOException("a record of " + size + " bytes is too large for " + dir);
            }
            Files.createDirectories(dir);
            long free = Files.getFileStore(dir).getUsableSpace();
            if (free < reserve + bytes) {
                throw new IOException("disk full: a host records segment in " + dir + " would leave less than "
                        + (reserve >> 20) + " MiB free");
            }
            Path file = segment(dir, index + 1);
            MappedByteBuffer fresh;
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                    StandardOpenOption.WRITE)) {
                ByteBuffer zeros = ByteBuffer.allocate(64 << 10);
                for (long at = 0; at < bytes; ) {
                    zeros.clear().limit((int) Math.min(zeros.capacity(), bytes - at));
                    at += ch.write(zeros, at);
                }
                fresh = ch.map(FileChannel.MapMode.READ_WRITE, 0, bytes);
            }
            fresh.order(ByteOrder.LITTLE_ENDIAN);
            fresh.putInt(VERSION_AT, VERSION);
            LONGS.setRelease(fresh, MAGIC_AT, MAGIC);
            if (map != null) {
                // After the next segment exists: a reader that sees the seal finds it.
                INTS.setRelease(map, SEALED_AT, 1);
            }
            map = fresh;
            index++;
            position = HEADER_BYTES;
        }

        private static long roundToPage(long bytes) {
            return (bytes + 4095) & ~4095L;
        }

        /** What the reader has stored as consumed in the current segment (acquire); 0 before the first segment. */
        public synchronized long consumed() {
            return map == null ? 0 : (long) LONGS.getAcquire(map, CONSUMED_AT);
        }

        /** Drops the mapping (the files stay; the reader removes them once appended). */
        @Override
        public synchronized void close() {
            map = null;
        }
    }

    /**
     * Reads the records as the host publishes them, for the drainer that appends them to the queue:
     * {@link #next} returns the next published record, {@link #consumed} says that what was
     * returned so far is in the queue. One thread uses an instance.
     */
    public static final class Cursor implements AutoCloseable {
        private final Path dir;
        private int index;
        private MappedByteBuffer map;
        private int position = HEADER_BYTES;
        /** {@link #position} after the last record returned, stored as consumed by {@link #consumed}. */
        private int returned = HEADER_BYTES;
        /** What {@link #consumed} stored last in the current segment. */
        private int consumedTo = HEADER_BYTES;
        /** Sealed segments left with records returned and not yet stored as consumed, and how far. */
        private final List<MappedByteBuffer> left = new ArrayList<>();
        private final List<Integer> leftAt = new ArrayList<>();

        public Cursor(Path dir) {
            this.dir = dir;
        }

        /**
         * The next published record's bytes (a view, valid until the next call), or null if none is
         * published yet.
         *
         * @throws FormatException for a record that fails its checksum or does not fit its segment
         */
        public ByteBuffer next() throws FormatException {
            while (true) {
                if (map == null && !open()) {
                    return null;
                }
                // Sealed before committed: once sealed, the committed read after it is the segment's last.
                boolean sealed = (int) INTS.getAcquire(map, SEALED_AT) != 0;
                long committed = (long) LONGS.getAcquire(map, COMMITTED_AT);
                if (position - HEADER_BYTES < committed) {
                    return record();
                }
                if (!sealed) {
                    return null;
                }
                // Sealed: nothing more comes here. Its consumed is stored when the caller says so.
                if (returned != consumedTo) {
                    left.add(map);
                    leftAt.add(returned);
                }
                index++;
                map = null;
                position = HEADER_BYTES;
                returned = HEADER_BYTES;
                consumedTo = HEADER_BYTES;
            }
        }

        private ByteBuffer record() throws FormatException {
            Path file = segment(dir, index);
            int size = map.getInt(position);
            if (size < 0 || (long) position + RECORD_HEAD_BYTES + size > map.capacity()) {
                throw new FormatException(file + ": the record at byte " + position + " runs past the segment ("
                        + size + " bytes)");
            }
            ByteBuffer bytes = map.slice(position + RECORD_HEAD_BYTES, size).order(ByteOrder.LITTLE_ENDIAN);
            if (checksum(bytes) != map.getInt(position + 4)) {
                throw new FormatException(file + ": the record at byte " + position + " fails its checksum");
            }
            position += RECORD_HEAD_BYTES + size;
            returned = position;
            return bytes;
        }

        /** Stores that every record returned so far is in the queue (release): recovery starts after it. */
        public void consumed() {
            for (int i = 0; i < left.size(); i++) {
                LONGS.setRelease(left.get(i), CONSUMED_AT, (long) (leftAt.get(i) - HEADER_BYTES));
            }
            left.clear();
            leftAt.clear();
            if (map != null) {
                LONGS.setRelease(map, CONSUMED_AT, (long) (returned - HEADER_BYTES));
                consumedTo = returned;
            }
        }

        private boolean open() throws FormatException {
            Path file = segment(dir, index);
            if (!Files.exists(file)) {
                return false;
            }
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                long size = ch.size();
                if (size < HEADER_BYTES) {
                    return false; // still being allocated
                }
                MappedByteBuffer m = ch.map(FileChannel.MapMode.READ_WRITE, 0, size);
                m.order(ByteOrder.LITTLE_ENDIAN);
                long magic = (long) LONGS.getAcquire(m, MAGIC_AT);
                if (magic == 0) {
                    return false;
                }
                checkHeader(file, magic, m.getInt(VERSION_AT));
                map = m;
                position = HEADER_BYTES + (int) Math.min((long) LONGS.getAcquire(m, CONSUMED_AT), size - HEADER_BYTES);
                returned = position;
                consumedTo = position;
                return true;
            } catch (IOException e) {
                throw new FormatException(file + ": cannot open (" + e.getMessage() + ")");
            }
        }

        @Override
        public void close() {
            map = null;
        }
    }

    private static void checkHeader(Path file, long magic, int version) throws FormatException {
        if (magic != MAGIC) {
            throw new FormatException(file + ": not a dprof host records file (magic " + Long.toHexString(magic) + ")");
        }
        if (version != VERSION) {
            throw new FormatException(file + ": host records version " + version + ", this reader knows " + VERSION);
        }
    }

    /**
     * What a directory's segments hold, for a reader after the host and its drainer are gone.
     *
     * @param pending     the queue documents from each segment's {@code consumed} on, in order: what no queue holds
     * @param agentThreads the ids of the agent's threads, from every segment
     * @param hostEnd     the host's end counts, if it ended normally
     * @param problems    one line per segment that is damaged or torn, naming it and what was left out
     */
    public record Contents(List<ByteBuffer> pending, Set<Long> agentThreads, Optional<HostEnd> hostEnd,
                           List<String> problems) {
        static final Contents NONE = new Contents(List.of(), Set.of(), Optional.empty(), List.of());

        /** Whether there were no segments at all. */
        public boolean isEmpty() {
            return this == NONE;
        }
    }

    /**
     * Reads every segment of {@code dir}, read-only. A record that runs past its segment or fails
     * its checksum is a torn tail: it and the rest of its segment are left out, named in
     * {@link Contents#problems}, and the next segment is read. Records past {@code committed} that
     * are whole (the host was killed between writing one and publishing it) are read too.
     */
    public static Contents read(Path dir) {
        if (!Files.isDirectory(dir)) {
            return Contents.NONE; // no segments (a ring directory that is not one is the ring files' reader's to name)
        }
        List<Path> files = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir, "*" + SUFFIX)) {
            stream.forEach(files::add);
        } catch (IOException e) {
            return new Contents(List.of(), Set.of(), Optional.empty(),
                    List.of(dir + ": cannot list the host records (" + e.getMessage() + "); none is read"));
        }
        if (files.isEmpty()) {
            return Contents.NONE;
        }
        files.sort(Comparator.comparingLong(HostRecords::index).thenComparing(Path::toString));
        List<ByteBuffer> pending = new ArrayList<>();
        Set<Long> agentThreads = new HashSet<>();
        HostEnd[] end = new HostEnd[1];
        for (Path file : files) {
            readSegment(file, pending, agentThreads, end, problems);
        }
        return new Contents(List.copyOf(pending), Set.copyOf(agentThreads), Optional.ofNullable(end[0]),
                List.copyOf(problems));
    }

    private static void readSegment(Path file, List<ByteBuffer> pending, Set<Long> agentThreads, HostEnd[] end,
                                    List<String> problems) {
        ByteBuffer map;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = ch.size();
            if (size == 0) {
                return; // made, not yet allocated: no record
            }
            if (size < HEADER_BYTES || size > Integer.MAX_VALUE) {
                problems.add(file + ": " + size + " bytes, not a host records segment; its records are left out");
                return;
            }
            map = ch.map(FileChannel.MapMode.READ_ONLY, 0, size).order(ByteOrder.LITTLE_ENDIAN);
        } catch (IOException e) {
            problems.add(file + ": cannot read (" + e.getMessage() + "); its records are left out");
            return;
        }
        long magic = map.getLong(MAGIC_AT);
        if (magic == 0) {
            return; // allocated, not yet stamped: no record
        }
        try {
            checkHeader(file, magic, map.getInt(VERSION_AT));
        } catch (FormatException e) {
            problems.add(e.getMessage() + "; its records are left out");
            return;
        }
        long consumed = map.getLong(CONSUMED_AT);
        int at = HEADER_BYTES;
        while (at + RECORD_HEAD_BYTES <= map.capacity()) {
            int size = map.getInt(at);
            if (size == 0 && map.getInt(at + 4) == 0) {
                break; // the end of what was written
            }
            String torn = null;
            ByteBuffer bytes = null;
            if (size <= 0 || (long) at + RECORD_HEAD_BYTES + size > map.capacity()) {
                torn = "its length (" + size + ") runs past the segment";
            } else {
                bytes = map.slice(at + RECORD_HEAD_BYTES, size).order(ByteOrder.LITTLE_ENDIAN);
                if (checksum(bytes) != map.getInt(at + 4)) {
                    torn = "it fails its checksum";
                }
            }
            if (torn != null) {
                problems.add(file + ": the record at byte " + at + " is torn (" + torn + "); it and the rest of the"
                        + " segment are left out");
                return;
            }
            noteChannelRecord(file, at, bytes, agentThreads, end, problems);
            if (at - HEADER_BYTES >= consumed && !channelOnly(bytes)) {
                pending.add(bytes);
            }
            at += RECORD_HEAD_BYTES + size;
        }
    }

    /** Takes what the reader needs from the channel's own records, wherever they are. */
    private static void noteChannelRecord(Path file, int at, ByteBuffer bytes, Set<Long> agentThreads, HostEnd[] end,
                                          List<String> problems) {
        int type = bytes.get(0) & 0xFF;
        if (type != AGENT_THREADS && type != HOST_END) {
            return;
        }
        ByteSource in = new ByteSource(bytes.duplicate().position(1));
        try {
            if (type == AGENT_THREADS) {
                for (long id : decodeAgentThreads(in)) {
                    agentThreads.add(id);
                }
            } else {
                end[0] = HostEnd.decode(in);
            }
        } catch (FormatException e) {
            problems.add(file + ": the record at byte " + at + " does not decode (" + e.getMessage() + "); skipped");
        }
    }

    private static long index(Path file) {
        String name = file.getFileName().toString();
        try {
            return Long.parseLong(name.substring(0, name.length() - SUFFIX.length()));
        } catch (NumberFormatException e) {
            return Long.MAX_VALUE;
        }
    }

    /** Deletes the segments in {@code dir}, for a host that drains in its own JVM after all. */
    public static void delete(Path dir) throws IOException {
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir, "*" + SUFFIX)) {
            for (Path f : stream) {
                Files.deleteIfExists(f);
            }
        }
    }

    /** Whether a record's bytes are one of the channel's own records rather than a queue document. */
    public static boolean channelOnly(ByteBuffer record) {
        int type = record.get(record.position()) & 0xFF;
        return type == AGENT_THREADS || type == MARK || type == HOST_END;
    }
}
