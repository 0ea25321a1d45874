package dev.dprof.format;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Reads what {@link ByteSink} wrote, from a {@link ByteBuffer}'s position to its limit. Every read
 * is bounds-checked: a truncated or corrupt record ends in a {@link FormatException} naming
 * what was being read, never in garbage or an unchecked exception.
 */
public final class ByteSource {
    private ByteBuffer buffer;

    public ByteSource(ByteBuffer buffer) {
        this.buffer = buffer;
    }

    /** Points this source at another buffer, so a reader can reuse one instance. */
    public ByteSource reset(ByteBuffer newBuffer) {
        this.buffer = newBuffer;
        return this;
    }

    /** The buffer read from, positioned at what is not read yet (for readers that decode in bulk). */
    ByteBuffer buffer() {
        return buffer;
    }

    public boolean hasRemaining() {
        return buffer.hasRemaining();
    }

    public int remaining() {
        return buffer.remaining();
    }

    public int readByte(String what) throws FormatException {
        if (!buffer.hasRemaining()) {
            throw new FormatException("truncated while reading " + what);
        }
        return buffer.get() & 0xFF;
    }

    public long readVarLong(String what) throws FormatException {
        long result = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (!buffer.hasRemaining()) {
                throw new FormatException("truncated while reading " + what);
            }
            int b = buffer.get();
            result |= (long) (b & 0x7F) << shift;
            if (b >= 0) {
                return result;
            }
        }
        throw new FormatException("malformed varint in " + what);
    }

    public long readSignedVarLong(String what) throws FormatException {
        long v = readVarLong(what);
        return (v >>> 1) ^ -(v & 1);
    }

    public int readVarInt(String what, int max) throws FormatException {
        long v = readVarLong(what);
        if (v < 0 || v > max) {
            throw new FormatException(what + " out of range: " + v);
        }
        return (int) v;
    }

    public long readFixedLong(String what) throws FormatException {
        if (buffer.remaining() < 8) {
            throw new FormatException("truncated while reading " + what);
        }
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v |= (long) (buffer.get() & 0xFF) << (8 * i);
        }
        return v;
    }

    public double readDouble(String what) throws FormatException {
        return Double.longBitsToDouble(readFixedLong(what));
    }

    public boolean readBoolean(String what) throws FormatException {
        return readByte(what) != 0;
    }

    public String readString(String what) throws FormatException {
        int length = readVarInt(what + " length", 1 << 24);
        if (buffer.remaining() < length) {
            throw new FormatException("truncated while reading " + what);
        }
        byte[] utf8 = new byte[length];
        buffer.get(utf8);
        return new String(utf8, StandardCharsets.UTF_8);
    }
}
