package dev.dprof.consolidator.read;

import dev.dprof.format.EventBatchReader;
import dev.dprof.format.FormatException;
import dev.dprof.format.RecordType;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Checks a process queue's files before Chronicle maps them, and, where they are damaged, gives
 * Chronicle a repaired copy to read instead, so that reading never touches a byte past a file's
 * end (a memory-access fault) and never stops silently at a damaged document header.
 *
 * <p>A {@code .cq4} file is a sequence of documents, each a 4-byte little-endian header (bit 31
 * "not complete", bit 30 "metadata", 30 bits of length) and its bytes, headers 4-byte aligned; a
 * zero header ends the written part. The check walks the headers with positional reads (one read
 * of 4 bytes per document, no mapping) and finds:
 * <ul>
 * <li>the written part running into the file's end (a truncated file): what lies past the end is
 * absent, and so is a document cut by it;</li>
 * <li>a document whose length runs past the file's end (a damaged length): it and the rest are
 * absent, since the next header cannot be found;</li>
 * <li>a "not complete" document followed by complete ones: the writer finished it (documents are
 * written one at a time), so only its flag is damaged; Chronicle would stop there, and the copy
 * clears the flag;</li>
 * <li>one of dprof's records flagged as Chronicle metadata (its first byte is a dprof record type;
 * Chronicle's own metadata starts with a binary-wire type byte, 0x80 or above): Chronicle would
 * skip it silently, and the copy clears the flag;</li>
 * <li>a missing or damaged {@code metadata.cq4t}: the copy goes without it and Chronicle makes a
 * new one there (it holds only the lock and the last index, which reading does not need).</li>
 * </ul>
 * Each finding is one line naming the file and the byte offset. The copy lives in a temporary
 * directory deleted by {@link Prepared#close}; an intact queue is read in place (the cost is the
 * header walk).
 *
 * <p>Implementation notes: the layout is Chronicle Queue 5's ({@code Wires.NOT_COMPLETE},
 * {@code META_DATA}, {@code LENGTH_MASK}, {@code END_OF_DATA}, 4-byte alignment of headers); a
 * queue written by another Chronicle version would need this class checked against it.
 */
final class QueueFiles {
    static final int NOT_COMPLETE = 0x8000_0000;
    static final int META_DATA = 0x4000_0000;
    static final int LENGTH_MASK = 0x3FFF_FFFF;
    /** Chronicle's end-of-file marker: not complete, metadata, no length. */
    static final int END_OF_DATA = NOT_COMPLETE | META_DATA;
    static final String METADATA = "metadata.cq4t";
    static final String SUFFIX = ".cq4";

    private QueueFiles() {
    }

    /** What to open, and what was found. */
    static final class Prepared implements AutoCloseable {
        final Path open;
        final boolean copied;
        final boolean writable;
        final List<String> problems;
        /** Whether a file was cut short: the events past the cut are unknown. */
        final boolean cut;

        Prepared(Path open, boolean copied, boolean writable, List<String> problems, boolean cut) {
            this.open = open;
            this.copied = copied;
            this.writable = writable;
            this.problems = problems;
            this.cut = cut;
        }

        /** Deletes the repaired copy, if one was made. */
        @Override
        public void close() {
            if (!copied) {
                return;
            }
            try (Stream<Path> walk = Files.walk(open)) {
                walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException e) {
                // a temporary directory left behind harms no one
            }
        }
    }

    /** One queue file's written part: where its documents end, and the headers to rewrite in a copy. */
    private record Walk(long end, long length, List<long[]> patches, List<String> problems) {
        boolean damaged() {
            return !patches.isEmpty() || cut();
        }

        boolean cut() {
            return end > length - 4 || patches.stream().anyMatch(p -> p[1] == 0);
        }
    }

    /** The first of {@code dir}'s queue files (by name, so by cycle): where Chronicle's header and the process header are. */
    static Optional<Path> first(Path dir) {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().endsWith(SUFFIX)).min(Comparator.naturalOrder());
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** Checks {@code dir}'s queue files; copies and repairs them when one is damaged. */
    static Prepared prepare(Path dir) throws ReadException {
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir, "*" + SUFFIX)) {
            stream.forEach(files::add);
        } catch (IOException e) {
            throw new ReadException(dir + ": cannot list the queue files (" + e.getMessage() + ")");
        }
        files.sort(Comparator.naturalOrder());
        List<String> problems = new ArrayList<>();
        List<Walk> walks = new ArrayList<>();
        boolean damaged = false;
        boolean cut = false;
        for (Path file : files) {
            Walk walk = walk(file);
            walks.add(walk);
            problems.addAll(walk.problems);
            damaged |= walk.damaged();
            cut |= walk.cut();
        }
        Path metadata = dir.resolve(METADATA);
        String metadataProblem = checkMetadata(metadata);
        if (metadataProblem != null) {
            problems.add(metadataProblem);
        }
        if (!damaged && metadataProblem == null) {
            return new Prepared(dir, false, false, problems, false);
        }
        Path copy;
        try {
            copy = Files.createTempDirectory("dprof-repaired-");
            for (int i = 0; i < files.size(); i++) {
                repair(files.get(i), walks.get(i), copy.resolve(files.get(i).getFileName()));
            }
            if (metadataProblem == null) {
                Files.copy(metadata, copy.resolve(METADATA));
            }
        } catch (IOException e) {
            throw new ReadException(dir + ": damaged (" + String.join("; ", problems) + ") and no repaired copy could"
                    + " be made (" + e.getMessage() + ")");
        }
        return new Prepared(copy, true, metadataProblem != null, problems, cut);
    }

    /** Null if {@code metadata.cq4t} is there and its first document is whole metadata; else why not. */
    private static String checkMetadata(Path metadata) {
        if (!Files.isRegularFile(metadata)) {
            return metadata + ": missing; the queue is read without it";
        }
        try (FileChannel in = FileChannel.open(metadata, StandardOpenOption.READ)) {
            long length = in.size();
            int header = header(in, 0);
            int size = header & LENGTH_MASK;
            if (length < 4 || (header & (NOT_COMPLETE | META_DATA)) != META_DATA || size == 0 || 4L + size > length) {
                return metadata + ": damaged header at offset 0 (0x" + Integer.toHexString(header)
                        + "); the queue is read without it";
            }
            return null;
        } catch (IOException e) {
            return metadata + ": unreadable (" + e.getMessage() + "); the queue is read without it";
        }
    }

    private static Walk walk(Path file) throws ReadException {
        List<long[]> patches = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ)) {
            long length = in.size();
            long position = 0;
            int document = 0;
            while (true) {
                if (position + 4 > length) {
                    problems.add(file + ": ends at " + length + " bytes inside its written part (truncated);"
                            + " what lay past the end is absent");
                    return new Walk(position, length, patches, problems);
                }
                int header = header(in, position);
                if (header == 0 || header == END_OF_DATA) {
                    return new Walk(position, length, patches, problems);
                }
                long size = header & LENGTH_MASK;
                long found = position + 4 + size > length ? resync(in, position, header, length) : -1;
                if (found > 0) {
                    long repaired = found - position - 4;
                    problems.add(file + ": document " + document + " at offset " + position + " claims " + size
                            + " bytes, past the file's end at " + length + " (a damaged length); the documents after it"
                            + " chain from offset " + found + " to the end, so its length is read as " + repaired);
                    header = (header & ~LENGTH_MASK) | (int) repaired;
                    patches.add(new long[] {position, header & 0xFFFF_FFFFL});
                    size = repaired;
                } else if (position + 4 + size > length) {
                    problems.add(file + ": document " + document + " at offset " + position + " claims " + size
                            + " bytes, past the file's end at " + length + " (truncated or a damaged length);"
                            + " it and what follows are absent");
                    patches.add(new long[] {position, 0});
                    return new Walk(position, length, patches, problems);
                }
                long next = align(position + 4 + size);
                if ((header & NOT_COMPLETE) != 0) {
                    if (size == 0 || next + 4 > length || header(in, next) == 0) {
                        // The last document, left half-written by a killed writer: not visible, as it should be.
                        return new Walk(position, length, patches, problems);
                    }
                    problems.add(file + ": document " + document + " at offset " + position + " is flagged"
                            + " not complete although documents follow it; the flag is ignored");
                    header &= ~NOT_COMPLETE;
                    patches.add(new long[] {position, header & 0xFFFF_FFFFL});
                }
                if ((header & META_DATA) != 0 && size > 0 && position > 0 && isRecordType(byteAt(in, position + 4))) {
                    problems.add(file + ": document " + document + " at offset " + position + " is a dprof record"
                            + " flagged as Chronicle metadata; the flag is ignored");
                    patches.add(new long[] {position, (header & ~META_DATA) & 0xFFFF_FFFFL});
                }
                position = next;
                document++;
            }
        } catch (IOException e) {
            throw new ReadException(file + ": unreadable (" + e.getMessage() + ")", file);
        }
    }

    /**
     * The offset of the document that follows a document at {@code damagedAt} whose length is
     * damaged (it runs past the file's end), or -1 if it cannot be found. A candidate is an aligned
     * offset from which the headers chain to the end of the written part (a zero header followed by
     * zeros, or Chronicle's end-of-file marker), every data document starting with a dprof record
     * type and every metadata document with a binary-wire byte (0x80 or above). When the damaged
     * document is a batch, it must also decode whole in the bytes up to the candidate: every offset
     * short of its true end then fails ("truncated"), so the first candidate is its true end, not a
     * chain that happens to start inside its bytes. Only the first {@link #RESYNC_WINDOW} bytes after
     * the damage are searched; a chain that reaches the window's end after {@link #MIN_CHAIN}
     * documents is taken.
     */
    static long resync(FileChannel in, long damagedAt, int header, long length) throws IOException {
        int window = (int) Math.min(length - damagedAt, RESYNC_WINDOW);
        boolean wholeFile = length - damagedAt <= RESYNC_WINDOW;
        ByteBuffer b = ByteBuffer.allocate(window).order(ByteOrder.LITTLE_ENDIAN);
        while (b.hasRemaining()) {
            if (in.read(b, damagedAt + b.position()) < 0) {
                break;
            }
        }
        int read = b.position();
        b.clear().limit(read);
        boolean batch = (header & META_DATA) == 0 && read > 4 && b.get(4) == RecordType.BATCH;
        EventBatchReader events = new EventBatchReader();
        byte[] bytes = b.array();
        for (int q = 8; q + 4 <= read; q += 4) {
            if (!chains(b, q, wholeFile || read < window)) {
                continue;
            }
            if (batch && !decodes(events, bytes, 5, q - 5)) {
                continue;
            }
            return damagedAt + q;
        }
        return -1;
    }

    /** Bytes searched after a damaged length for the documents that follow it. */
    static final int RESYNC_WINDOW = 16 << 20;
    /** Documents a chain must pass before the search window's end to be taken without reaching the queue's end. */
    static final int MIN_CHAIN = 16;

    private static boolean chains(ByteBuffer b, int at, boolean toFileEnd) {
        int documents = 0;
        while (true) {
            if (at + 4 > b.limit()) {
                return !toFileEnd && documents >= MIN_CHAIN;
            }
            int h = b.getInt(at);
            if (h == END_OF_DATA) {
                return documents > 0;
            }
            if (h == 0) {
                if (documents == 0) {
                    return false;
                }
                // the end of the written part is followed by zeros (a zero word inside a document is not)
                for (int z = at + 4; z < Math.min(b.limit(), at + 256); z++) {
                    if (b.get(z) != 0) {
                        return false;
                    }
                }
                return true;
            }
            int size = h & LENGTH_MASK;
            if (size == 0 || (long) at + 4 + size > b.limit()) {
                return !toFileEnd && documents >= MIN_CHAIN && size > 0 && (h & NOT_COMPLETE) == 0;
            }
            int first = b.get(at + 4) & 0xFF;
            if ((h & META_DATA) != 0 ? first < 0x80 : !isRecordType(first)) {
                return false;
            }
            if ((h & NOT_COMPLETE) != 0) {
                // only a killed writer's last document is not complete
                int next = (int) align(at + 4 + size);
                return next + 4 > b.limit() || b.getInt(next) == 0;
            }
            documents++;
            at = (int) align(at + 4 + size);
        }
    }

    /** Whether the batch body of {@code length} bytes at {@code offset} decodes whole. */
    private static boolean decodes(EventBatchReader events, byte[] bytes, int offset, int length) {
        try {
            events.reset(bytes, offset, length);
            while (events.next()) {
                // every event must decode
            }
            return true;
        } catch (FormatException e) {
            return false;
        }
    }

    /** Copies what {@code walk} found written of {@code from}, with its headers patched and zeros after. */
    private static void repair(Path from, Walk walk, Path to) throws IOException {
        try (FileChannel in = FileChannel.open(from, StandardOpenOption.READ);
             FileChannel out = FileChannel.open(to, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
                     StandardOpenOption.READ)) {
            long end = Math.min(walk.end, walk.length);
            for (long done = 0; done < end; ) {
                done += in.transferTo(done, end - done, out);
            }
            ByteBuffer header = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
            for (long[] patch : walk.patches) {
                header.clear();
                header.putInt(0, (int) patch[1]);
                out.write(header, patch[0]);
            }
            // Zeros after the written part (sparse): the next header Chronicle reads ends the data.
            long size = Math.max(walk.length, align(end) + (1 << 20));
            out.write(ByteBuffer.allocate(1), size - 1);
        }
    }

    static boolean isRecordType(int b) {
        return b == RecordType.HEADER || b == RecordType.REGION || b == RecordType.THREAD || b == RecordType.BATCH
                || b == RecordType.END || b == RecordType.WEAVING || b == RecordType.LOSS
                || b == RecordType.CONNECTION || b == RecordType.CLOCK_CHECK;
    }

    private static long align(long position) {
        return (position + 3) & ~3L;
    }

    static int header(FileChannel in, long position) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
        while (b.hasRemaining()) {
            if (in.read(b, position + b.position()) < 0) {
                return 0;
            }
        }
        return b.getInt(0);
    }

    private static int byteAt(FileChannel in, long position) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(1);
        return in.read(b, position) == 1 ? b.get(0) & 0xFF : -1;
    }
}
