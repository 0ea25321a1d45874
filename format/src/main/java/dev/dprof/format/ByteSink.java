package dev.dprof.format;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A growable byte buffer that writes the primitives of the on-disk layout: unsigned LEB128
 * varints, zig-zag signed varints, fixed little-endian longs and length-prefixed UTF-8.
 *
 * <p>Reused by its owner ({@link #clear()}) so that encoding allocates nothing in steady state.
 */
public final class ByteSink {
    /** The longest varint: 64 bits in groups of 7. */
    public static final int MAX_VARINT_BYTES = 10;

    private byte[] bytes;
    private int size;

    public ByteSink(int initialCapacity) {
        bytes = new byte[Math.max(16, initialCapacity)];
    }

    public void clear() {
        size = 0;
    }

    /** Forgets what was written after the first {@code newSize} bytes. */
    public void truncate(int newSize) {
        if (newSize < 0 || newSize > size) {
            throw new IndexOutOfBoundsException("truncate to " + newSize + " of " + size);
        }
        size = newSize;
    }

    public int size() {
        return size;
    }

    /** The backing array; valid up to {@link #size()}. */
    public byte[] array() {
        return bytes;
    }

    public byte[] toByteArray() {
        return Arrays.copyOf(bytes, size);
    }

    /**
     * Makes room for {@code more} bytes, so that a record of bounded size can be written with the
     * unchecked {@code put} methods, or directly into the returned backing array from {@link #size()}
     * on by a caller that then calls {@link #skip}: one capacity check per record or run of writes
     * instead of one per field.
     */
    public byte[] reserve(int more) {
        if (size + more > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + more));
        }
        return bytes;
    }

    /** Counts {@code n} bytes written directly into the array after {@link #reserve}. */
    public void skip(int n) {
        if (n < 0 || size + n > bytes.length) {
            throw new IndexOutOfBoundsException("skip " + n + " at " + size + " of " + bytes.length);
        }
        size += n;
    }

    /** Writes {@code v} as an unsigned LEB128 varint into {@code b} at {@code pos}; returns the next position. */
    public static int putVarLong(byte[] b, int pos, long v) {
        while ((v & ~0x7FL) != 0) {
            b[pos++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        b[pos++] = (byte) v;
        return pos;
    }

    public void writeByte(int b) {
        reserve(1);
        putByte(b);
    }

    public void writeVarLong(long v) {
        reserve(MAX_VARINT_BYTES);
        putVarLong(v);
    }

    /** {@link #putVarLong} of the zig-zag form, as {@link #writeSignedVarLong} writes it. */
    public static int putSignedVarLong(byte[] b, int pos, long v) {
        return putVarLong(b, pos, (v << 1) ^ (v >> 63));
    }

    public void writeSignedVarLong(long v) {
        writeVarLong((v << 1) ^ (v >> 63));
    }

    /** {@link #writeByte} without the capacity check: only within what {@link #reserve} made room for. */
    public void putByte(int b) {
        bytes[size++] = (byte) b;
    }

    /** {@link #writeVarLong} without the capacity check (at most {@value #MAX_VARINT_BYTES} bytes). */
    public void putVarLong(long v) {
        size = putVarLong(bytes, size, v);
    }

    /** {@link #writeSignedVarLong} without the capacity check. */
    public void putSignedVarLong(long v) {
        putVarLong((v << 1) ^ (v >> 63));
    }

    public void writeFixedLong(long v) {
        reserve(8);
        for (int i = 0; i < 8; i++) {
            bytes[size++] = (byte) (v >>> (8 * i));
        }
    }

    public void writeDouble(double v) {
        writeFixedLong(Double.doubleToRawLongBits(v));
    }

    public void writeBoolean(boolean v) {
        writeByte(v ? 1 : 0);
    }

    public void writeString(String s) {
        byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        writeVarLong(utf8.length);
        reserve(utf8.length);
        System.arraycopy(utf8, 0, bytes, size, utf8.length);
        size += utf8.length;
    }

}
