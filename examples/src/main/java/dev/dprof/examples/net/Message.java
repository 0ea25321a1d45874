package dev.dprof.examples.net;

import java.io.StreamCorruptedException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * One message: a channel, a sequence number and a payload of numbers. On the wire it is a 16-byte
 * header (channel, payload length, seq) followed by the payload, all little-endian.
 *
 * <p>{@link #channel} and {@link #seq} are public fields on purpose: a profiler configured in YAML
 * reads the key of a send or a receive as {@code {arg: N, field: seq}} of the message argument
 * (see {@code docs/CONFIG.md}). A message is mutable so that a receive can fill one that the caller
 * owns: the receive's key is then read from that argument as the call returns.
 *
 * <p>Not thread-safe; one thread fills, sends or receives a message at a time.
 */
public final class Message {
    /** Bytes of the header in front of every payload. */
    public static final int HEADER_BYTES = 16;
    /** Largest payload accepted from the wire, so a corrupt length cannot exhaust the heap. */
    public static final int MAX_PAYLOAD = 1 << 30;

    /** What the message is for; constant per collective or per request direction. */
    public int channel;
    /** Unique within a channel across the whole cluster; pairs a send with its receive. */
    public long seq;

    private byte[] payload = new byte[0];
    private int length;

    public Message() {
    }

    public Message(int channel) {
        this.channel = channel;
    }

    /** Payload length in bytes. */
    public int length() {
        return length;
    }

    /** The payload as a buffer of {@link #length} bytes; valid until the payload changes. */
    ByteBuffer payload() {
        return ByteBuffer.wrap(payload, 0, length);
    }

    /** Makes room for {@code bytes} payload bytes (contents unspecified) and returns the array. */
    byte[] resize(int bytes) {
        if (bytes < 0 || bytes > MAX_PAYLOAD) {
            throw new IllegalArgumentException("payload of " + bytes + " bytes (limit " + MAX_PAYLOAD + ")");
        }
        if (payload.length < bytes) {
            payload = new byte[Math.max(bytes, payload.length * 2)];
        }
        length = bytes;
        return payload;
    }

    /** Replaces the payload by {@code values[from, to)}. */
    public Message putDoubles(double[] values, int from, int to) {
        resize((to - from) * Double.BYTES);
        view().asDoubleBuffer().put(values, from, to - from);
        return this;
    }

    /** Copies the payload, read as doubles, into {@code into} starting at {@code at}. */
    public void getDoubles(double[] into, int at) {
        view().asDoubleBuffer().get(into, at, count(Double.BYTES));
    }

    public Message putLongs(long[] values, int from, int to) {
        resize((to - from) * Long.BYTES);
        view().asLongBuffer().put(values, from, to - from);
        return this;
    }

    public void getLongs(long[] into, int at) {
        view().asLongBuffer().get(into, at, count(Long.BYTES));
    }

    public Message putInts(int[] values, int from, int to) {
        resize((to - from) * Integer.BYTES);
        view().asIntBuffer().put(values, from, to - from);
        return this;
    }

    public void getInts(int[] into, int at) {
        view().asIntBuffer().get(into, at, count(Integer.BYTES));
    }

    /** How many numbers of {@code size} bytes the payload holds. */
    public int count(int size) {
        if (length % size != 0) {
            throw new IllegalStateException("payload of " + length + " bytes is not a whole number of "
                    + size + "-byte values");
        }
        return length / size;
    }

    private ByteBuffer view() {
        return ByteBuffer.wrap(payload, 0, length).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** Writes the header of this message into {@code header} (position 0, 16 bytes, flipped). */
    void header(ByteBuffer header) {
        header.clear();
        header.putInt(channel).putInt(length).putLong(seq).flip();
    }

    /** Takes channel and seq from a received header and returns the payload length it announces. */
    int readHeader(ByteBuffer header) throws StreamCorruptedException {
        channel = header.getInt(0);
        int announced = header.getInt(4);
        seq = header.getLong(8);
        if (announced < 0 || announced > MAX_PAYLOAD) {
            throw new StreamCorruptedException("corrupt header: payload of " + announced + " bytes");
        }
        return announced;
    }

    /** A header buffer in the wire byte order. */
    static ByteBuffer newHeader() {
        return ByteBuffer.allocate(HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    }

    @Override
    public String toString() {
        return "Message[channel " + channel + ", seq " + Long.toHexString(seq) + ", " + length + " bytes]";
    }
}
