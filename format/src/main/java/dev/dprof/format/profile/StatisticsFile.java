package dev.dprof.format.profile;

import dev.dprof.format.ByteSink;
import dev.dprof.format.ByteSource;
import dev.dprof.format.FormatException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * {@code statistics.bin} of a consolidated profile (docs/FORMAT.md, "{@code statistics.bin}"): the
 * statistics-mode records of its processes, as they were written, each with its interval's first and last
 * tick converted to reference bounds, and what a reader needs beside them (each process's label, tick
 * rate and probe cost, its region table, its loss). Absent when no process was in statistics mode.
 */
public final class StatisticsFile {
    public static final String NAME = "statistics.bin";
    public static final byte[] MAGIC = "DPROFST1\n".getBytes(StandardCharsets.US_ASCII);
    static final int PROCESS = 'P';
    static final int REGION = 'R';
    static final int INTERVAL = 'S';
    static final int END = 'E';

    private StatisticsFile() {
    }

    /** Receives the file's entries in written order. */
    public interface Visitor {
        void process(int process, String label, double nominalTickHz, long probeCostX1024);

        void region(int process, int id, String name, String kind);

        /** {@code record}: the {@code S} record, type byte first; the interval's ends as reference bounds. */
        void interval(int process, long firstLo, long firstHi, long lastLo, long lastHi, ByteSource record)
                throws FormatException;

        void end(int process, long lostEvents);
    }

    /** Builds the file in memory (a record per region and interval: small beside the events). */
    public static final class Writer {
        private final ByteSink out = new ByteSink(1 << 12);

        public Writer() {
            out.reserve(MAGIC.length);
            System.arraycopy(MAGIC, 0, out.array(), 0, MAGIC.length);
            out.skip(MAGIC.length);
        }

        public void process(int process, String label, double nominalTickHz, long probeCostX1024) {
            out.writeByte(PROCESS);
            out.writeVarLong(process);
            out.writeString(label);
            out.writeDouble(nominalTickHz);
            out.writeVarLong(probeCostX1024);
        }

        public void region(int process, int id, String name, String kind) {
            out.writeByte(REGION);
            out.writeVarLong(process);
            out.writeVarLong(id);
            out.writeString(name);
            out.writeString(kind);
        }

        public void interval(int process, long firstLo, long firstHi, long lastLo, long lastHi, byte[] record) {
            out.writeByte(INTERVAL);
            out.writeVarLong(process);
            out.writeSignedVarLong(firstLo);
            out.writeSignedVarLong(firstHi);
            out.writeSignedVarLong(lastLo);
            out.writeSignedVarLong(lastHi);
            out.writeVarLong(record.length);
            out.reserve(record.length);
            System.arraycopy(record, 0, out.array(), out.size(), record.length);
            out.skip(record.length);
        }

        public void end(int process, long lostEvents) {
            out.writeByte(END);
            out.writeVarLong(process);
            out.writeVarLong(lostEvents);
        }

        public void write(Path dir) throws IOException {
            Files.write(dir.resolve(NAME), out.toByteArray());
        }
    }

    /** Reads {@code file} into {@code visitor}; a bad entry is an error naming the file and the offset. */
    public static void read(Path file, Visitor visitor) throws IOException, FormatException {
        byte[] bytes = Files.readAllBytes(file);
        if (bytes.length < MAGIC.length || !Arrays.equals(Arrays.copyOf(bytes, MAGIC.length), MAGIC)) {
            throw new FormatException(file + ": not a statistics file (no " + new String(MAGIC, 0, MAGIC.length - 1,
                    StandardCharsets.US_ASCII) + " line)");
        }
        ByteBuffer buffer = ByteBuffer.wrap(bytes, MAGIC.length, bytes.length - MAGIC.length);
        ByteSource in = new ByteSource(buffer);
        while (in.hasRemaining()) {
            int at = buffer.position();
            try {
                int type = in.readByte("entry type");
                int process = in.readVarInt("process", Integer.MAX_VALUE);
                switch (type) {
                    case PROCESS -> visitor.process(process, in.readString("label"), in.readDouble("tick rate"),
                            in.readVarLong("probe cost"));
                    case REGION -> visitor.region(process, in.readVarInt("region id", Integer.MAX_VALUE),
                            in.readString("region name"), in.readString("region kind"));
                    case INTERVAL -> {
                        long firstLo = in.readSignedVarLong("first tick's lower bound");
                        long firstHi = in.readSignedVarLong("first tick's upper bound");
                        long lastLo = in.readSignedVarLong("last tick's lower bound");
                        long lastHi = in.readSignedVarLong("last tick's upper bound");
                        int length = in.readVarInt("record length", 1 << 26);
                        if (in.remaining() < length) {
                            throw new FormatException("truncated while reading a statistics record");
                        }
                        ByteBuffer record = ByteBuffer.wrap(bytes, buffer.position(), length);
                        buffer.position(buffer.position() + length);
                        visitor.interval(process, firstLo, firstHi, lastLo, lastHi, new ByteSource(record.slice()));
                    }
                    case END -> visitor.end(process, in.readVarLong("lost events"));
                    default -> throw new FormatException("unknown entry type " + type);
                }
            } catch (FormatException e) {
                throw new FormatException(file + ": byte " + at + ": " + e.getMessage());
            }
        }
    }
}
