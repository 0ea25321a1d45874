package dev.dprof.format;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HostRecordsTest {
    @TempDir
    Path dir;

    private static ByteSink region(int id) {
        ByteSink sink = new ByteSink(16);
        new RegionInfo(id, "region-" + id, "plain", "yaml", "Test#method()V", OptionalLong.empty()).encode(sink);
        return sink;
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    private static List<byte[]> drain(HostRecords.Cursor cursor) throws FormatException {
        List<byte[]> out = new ArrayList<>();
        for (ByteBuffer r = cursor.next(); r != null; r = cursor.next()) {
            out.add(bytes(r));
        }
        return out;
    }

    @Test
    void theCursorReturnsEachRecordOnceInOrderAsItIsPublished() throws Exception {
        try (HostRecords.Writer w = new HostRecords.Writer(dir, 0); HostRecords.Cursor c = new HostRecords.Cursor(dir)) {
            assertNull(c.next(), "no segment yet");
            w.append(region(1));
            w.append(region(2));
            List<byte[]> first = drain(c);
            assertEquals(2, first.size());
            assertArrayEquals(region(1).toByteArray(), first.get(0));
            assertArrayEquals(region(2).toByteArray(), first.get(1));
            w.append(region(3));
            List<byte[]> second = drain(c);
            assertEquals(1, second.size());
            assertArrayEquals(region(3).toByteArray(), second.get(0));
        }
    }

    @Test
    void recordsCrossSegmentsInOrderAndARecordLargerThanASegmentGetsOneOfItsOwn() throws Exception {
        ByteSink big = new ByteSink(16);
        big.writeByte(RecordType.WEAVING);
        big.writeString("x".repeat(HostRecords.SEGMENT_BYTES + 100));
        int small = 0;
        try (HostRecords.Writer w = new HostRecords.Writer(dir, 0); HostRecords.Cursor c = new HostRecords.Cursor(dir)) {
            // Fill the first segment past its end with small records, then the large one, then one more.
            for (long written = 0; written < HostRecords.SEGMENT_BYTES; written += region(small).size() + 8) {
                w.append(region(small++));
            }
            w.append(big);
            w.append(region(9999));
            List<byte[]> all = drain(c);
            assertEquals(small + 2, all.size());
            for (int i = 0; i < small; i++) {
                assertArrayEquals(region(i).toByteArray(), all.get(i), "record " + i);
            }
            assertArrayEquals(big.toByteArray(), all.get(small));
            assertArrayEquals(region(9999).toByteArray(), all.get(small + 1));
        }
        assertTrue(HostRecords.segment(dir, 2).toFile().exists(), "three segments");
    }

    @Test
    void aReaderAfterTheHostAndItsDrainerGetsWhatWasNotConsumed() throws Exception {
        try (HostRecords.Writer w = new HostRecords.Writer(dir, 0); HostRecords.Cursor c = new HostRecords.Cursor(dir)) {
            w.append(region(1));
            w.append(region(2));
            assertEquals(2, drain(c).size());
            c.consumed();
            w.append(region(3));
            assertEquals(1, drain(c).size()); // returned, never stored as consumed: not in the queue
        }
        HostRecords.Contents read = HostRecords.read(dir);
        assertEquals(List.of(), read.problems());
        assertEquals(1, read.pending().size());
        assertArrayEquals(region(3).toByteArray(), bytes(read.pending().get(0)));
        // A new cursor (a drainer started again) begins where the last one's consumed was.
        try (HostRecords.Cursor again = new HostRecords.Cursor(dir)) {
            List<byte[]> rest = drain(again);
            assertEquals(1, rest.size());
            assertArrayEquals(region(3).toByteArray(), rest.get(0));
        }
    }

    @Test
    void theChannelsOwnRecordsAreReadFromEverySegmentAndNeverPending() throws Exception {
        try (HostRecords.Writer w = new HostRecords.Writer(dir, 0); HostRecords.Cursor c = new HostRecords.Cursor(dir)) {
            ByteSink own = new ByteSink(16);
            HostRecords.encodeAgentThreads(own, new long[] {7, 9});
            w.append(own);
            ByteSink mark = new ByteSink(16);
            HostRecords.encodeMark(mark, new long[] {1, 2}, new long[] {100, 200}, new long[] {0, 5000}, 2);
            w.append(mark);
            List<byte[]> read = drain(c);
            assertEquals(2, read.size());
            ByteSource in = new ByteSource(ByteBuffer.wrap(read.get(1)));
            assertEquals(HostRecords.MARK, in.readByte("type"));
            assertEquals(List.of(new HostRecords.Mark(1, 100, 0), new HostRecords.Mark(2, 200, 5000)),
                    HostRecords.decodeMark(in));
            c.consumed();
            w.append(region(5));
            ByteSink end = new ByteSink(16);
            HostRecords.encodeHostEnd(end, new HostRecords.HostEnd(3, 11, 123_456));
            w.append(end);
        }
        HostRecords.Contents read = HostRecords.read(dir);
        assertEquals(Set.of(7L, 9L), read.agentThreads(), "consumed or not, the agent's threads are known");
        assertEquals(Optional.of(new HostRecords.HostEnd(3, 11, 123_456)), read.hostEnd());
        assertEquals(1, read.pending().size(), "only the queue document is pending");
        assertArrayEquals(region(5).toByteArray(), bytes(read.pending().get(0)));
    }

    @Test
    void aWholeRecordTheHostWroteButDidNotPublishIsRead() throws Exception {
        try (HostRecords.Writer w = new HostRecords.Writer(dir, 0)) {
            w.append(region(1));
            w.append(region(2));
        }
        // The host killed between writing the second record and publishing it.
        long committed = HostRecords.RECORD_HEAD_BYTES + region(1).size();
        patchLong(HostRecords.segment(dir, 0), HostRecords.COMMITTED_AT, committed);
        HostRecords.Contents read = HostRecords.read(dir);
        assertEquals(List.of(), read.problems());
        assertEquals(2, read.pending().size());
        try (HostRecords.Cursor c = new HostRecords.Cursor(dir)) {
            assertEquals(1, drain(c).size(), "a live reader reads only what is published");
        }
    }

    @Test
    void aTornTailIsNamedAndWhatCameBeforeItAndTheNextSegmentAreKept() throws Exception {
        ByteSink filler = new ByteSink(16);
        filler.writeByte(RecordType.WEAVING);
        filler.writeString("y".repeat(HostRecords.SEGMENT_BYTES - 64));
        try (HostRecords.Writer w = new HostRecords.Writer(dir, 0)) {
            w.append(region(1));
            w.append(region(2));
            w.append(filler); // does not fit: segment 1
            w.append(region(3)); // after it in segment 1
        }
        Path first = HostRecords.segment(dir, 0);
        int second = HostRecords.HEADER_BYTES + HostRecords.RECORD_HEAD_BYTES + region(1).size();
        // A byte of the second record's bytes damaged: its checksum fails.
        patchByte(first, second + HostRecords.RECORD_HEAD_BYTES + 2);
        HostRecords.Contents read = HostRecords.read(dir);
        assertEquals(1, read.problems().size(), read.problems().toString());
        String line = read.problems().get(0);
        assertTrue(line.startsWith(first + ": the record at byte " + second + " is torn (it fails its checksum)"), line);
        assertEquals(3, read.pending().size(), "region 1, the filler and region 3");
        assertArrayEquals(region(1).toByteArray(), bytes(read.pending().get(0)));
        assertArrayEquals(region(3).toByteArray(), bytes(read.pending().get(2)));
        try (HostRecords.Cursor c = new HostRecords.Cursor(dir)) {
            assertEquals(region(1).size(), c.next().remaining());
            FormatException e = assertThrows(FormatException.class, c::next);
            assertTrue(e.getMessage().contains("fails its checksum"), e.getMessage());
        }
    }

    @Test
    void aLengthRunningPastTheSegmentIsATornTail() throws Exception {
        try (HostRecords.Writer w = new HostRecords.Writer(dir, 0)) {
            w.append(region(1));
            w.append(region(2));
        }
        Path file = HostRecords.segment(dir, 0);
        int second = HostRecords.HEADER_BYTES + HostRecords.RECORD_HEAD_BYTES + region(1).size();
        patchInt(file, second, HostRecords.SEGMENT_BYTES);
        HostRecords.Contents read = HostRecords.read(dir);
        assertEquals(1, read.pending().size());
        assertEquals(List.of(file + ": the record at byte " + second + " is torn (its length (" + HostRecords.SEGMENT_BYTES
                + ") runs past the segment); it and the rest of the segment are left out"), read.problems());
    }

    @Test
    void aFileThatIsNotASegmentIsNamedAndTheOthersAreRead() throws Exception {
        try (HostRecords.Writer w = new HostRecords.Writer(dir, 0)) {
            w.append(region(1));
        }
        Path bad = HostRecords.segment(dir, 1);
        try (FileChannel ch = FileChannel.open(bad, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(new byte[HostRecords.HEADER_BYTES + 8]).put(HostRecords.MAGIC_AT, (byte) 1));
        }
        HostRecords.Contents read = HostRecords.read(dir);
        assertEquals(1, read.pending().size());
        assertEquals(1, read.problems().size());
        assertTrue(read.problems().get(0).startsWith(bad + ": not a dprof host records file (magic 1)"),
                read.problems().get(0));
    }

    @Test
    void noSegmentsIsNothing() {
        assertTrue(HostRecords.read(dir).isEmpty());
        assertTrue(HostRecords.read(dir.resolve("absent")).isEmpty());
    }

    @Test
    void aSegmentThatWouldCutIntoTheReserveIsRefusedAndNothingIsWritten() {
        IOException e = assertThrows(IOException.class,
                () -> new HostRecords.Writer(dir, Long.MAX_VALUE / 2).append(region(1)));
        assertTrue(e.getMessage().startsWith("disk full: a host records segment in " + dir), e.getMessage());
        assertTrue(HostRecords.read(dir).isEmpty());
    }

    private static void patchLong(Path file, int at, long value) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(0, value), at);
        }
    }

    private static void patchInt(Path file, int at, int value) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(0, value), at);
        }
    }

    private static void patchByte(Path file, int at) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.allocate(1);
            ch.read(b, at);
            b.put(0, (byte) (b.get(0) ^ 0x5A)).position(0);
            ch.write(b, at);
        }
    }
}
