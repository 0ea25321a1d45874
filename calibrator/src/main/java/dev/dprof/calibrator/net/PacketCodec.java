package dev.dprof.calibrator.net;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/**
 * Encodes and decodes {@link Packet}s (layout in {@code docs/CALIBRATION.md}): a 24-byte header
 * (magic {@code DPRC}, version, type, flags, reserved, session, seq), a fixed body per type, and,
 * when the two sides share a key, a 16-byte HMAC-SHA256 tag over everything before it. Decoding
 * checks every byte and never throws anything but {@link MalformedPacketException}, so a server
 * fed garbage only counts it; {@link #parse}, the check itself, returns a result code and allocates
 * nothing, so a flood of garbage or of requests makes no garbage in the server's heap.
 *
 * <p>Every request is at least as large as its reply (a ping is padded to a pong's size, a hello
 * to the largest welcome), so a server cannot be used to amplify a spoofed request's traffic.
 * Version 2 padded the hello; a version-1 peer is rejected with {@code VERSION}, which names both
 * versions.
 *
 * <p>Not thread-safe (it holds its HMAC's state and what {@link #parse} found last): one codec per
 * thread.
 */
public final class PacketCodec {
    /** {@code "DPRC"}. */
    static final int MAGIC = 0x44505243;
    static final int VERSION = 2;
    static final int HEADER_BYTES = 24;
    static final int TAG_BYTES = 16;
    static final int FLAG_TAG = 1;
    /** Larger than any packet: header, a text of {@link Packet#MAX_TEXT_BYTES} and a tag. */
    public static final int MAX_BYTES = 2048;

    /** The packet types, as {@link #parse} returns them. */
    static final int TYPE_HELLO = 1;
    static final int TYPE_WELCOME = 2;
    static final int TYPE_PING = 3;
    static final int TYPE_PONG = 4;
    /** What {@link #parse} returns for a datagram it rejects. */
    static final int REJECTED = -1;
    /** A ping is padded to a pong's size: a reply is never larger than its request. */
    private static final int PING_PADDING = 16;
    private static final int PONG_BODY = 16;
    /** A hello's body is its text padded to the longest a welcome can be: a welcome is never larger. */
    static final int HELLO_BODY = 2 + Packet.MAX_TEXT_BYTES;
    /** Offsets of the type, the session and the sequence number in the header. */
    static final int TYPE_OFFSET = 5;
    static final int SESSION_OFFSET = 8;
    static final int SEQ_OFFSET = 16;

    /** Null without a key. */
    private final HmacSha256 mac;

    // What parse found last: the fields of an accepted packet, or why it rejected one.
    private long session;
    private long seq;
    private long pongA;
    private long pongFingerprint;
    private int textOffset;
    private int textLength;
    private Rejection rejected;
    private int rejectedA;
    private int rejectedB;

    private PacketCodec(HmacSha256 mac) {
        this.mac = mac;
    }

    /** A codec without authentication: packets carry no tag, and tagged packets are rejected. */
    public static PacketCodec open() {
        return new PacketCodec(null);
    }

    /** A codec that tags every packet and accepts only packets with a valid tag under {@code key}. */
    public static PacketCodec keyed(SharedKey key) {
        return new PacketCodec(new HmacSha256(key.bytes()));
    }

    /** A codec for an optional key. */
    public static PacketCodec of(Optional<SharedKey> key) {
        return key.map(PacketCodec::keyed).orElseGet(PacketCodec::open);
    }

    /** The first 8 bytes of SHA-256 of a domain id: short enough for every reply, long enough to tell domains apart. */
    public static long fingerprint(String domainId) {
        try {
            byte[] h = MessageDigest.getInstance("SHA-256").digest(domainId.getBytes(StandardCharsets.UTF_8));
            return ByteBuffer.wrap(h).getLong();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 unavailable in this JVM", e);
        }
    }

    /**
     * Writes {@code p} to the start of {@code out} ({@link #MAX_BYTES} long).
     *
     * @return the number of bytes written
     * @throws IllegalArgumentException if a text is empty, too long or has blanks
     */
    public int encode(Packet p, byte[] out) {
        if (p instanceof Packet.Hello h) {
            int n = putText(out, header(out, TYPE_HELLO, p.session(), p.seq()), text(h.domainId()));
            Arrays.fill(out, n, HEADER_BYTES + HELLO_BODY, (byte) 0);
            return tagged(out, HEADER_BYTES + HELLO_BODY);
        }
        if (p instanceof Packet.Welcome w) {
            return encodeWelcome(p.session(), p.seq(), text(w.domainId()), out);
        }
        if (p instanceof Packet.Ping) {
            int n = header(out, TYPE_PING, p.session(), p.seq());
            Arrays.fill(out, n, n + PING_PADDING, (byte) 0);
            return tagged(out, n + PING_PADDING);
        }
        Packet.Pong q = (Packet.Pong) p;
        return encodePong(q.session(), q.seq(), q.a(), q.domainFingerprint(), out);
    }

    /** A {@link Packet.Pong} written to {@code out} without a packet object; returns its length. */
    public int encodePong(long session, long seq, long a, long domainFingerprint, byte[] out) {
        int n = header(out, TYPE_PONG, session, seq);
        putLong(out, n, a);
        putLong(out, n + 8, domainFingerprint);
        return tagged(out, n + PONG_BODY);
    }

    /**
     * A {@link Packet.Welcome} written to {@code out} without a packet object, its domain id given
     * as checked UTF-8 ({@link #text(String)}); returns its length.
     */
    public int encodeWelcome(long session, long seq, byte[] domainIdUtf8, byte[] out) {
        return tagged(out, putText(out, header(out, TYPE_WELCOME, session, seq), domainIdUtf8));
    }

    /**
     * {@code s} as a packet's text, UTF-8.
     *
     * @throws IllegalArgumentException if it is empty, too long or has blanks
     */
    public static byte[] text(String s) {
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > Packet.MAX_TEXT_BYTES || Utf8Token.check(bytes, 0, bytes.length) != Utf8Token.VALID) {
            throw new IllegalArgumentException("a packet text must be 1.." + Packet.MAX_TEXT_BYTES
                    + " UTF-8 bytes without blanks: '" + s + "'");
        }
        return bytes;
    }

    private int header(byte[] out, int type, long session, long seq) {
        putInt(out, 0, MAGIC);
        out[4] = (byte) VERSION;
        out[TYPE_OFFSET] = (byte) type;
        out[6] = (byte) (mac != null ? FLAG_TAG : 0);
        out[7] = 0;
        putLong(out, SESSION_OFFSET, session);
        putLong(out, SEQ_OFFSET, seq);
        return HEADER_BYTES;
    }

    private static int putText(byte[] out, int at, byte[] text) {
        out[at] = (byte) (text.length >>> 8);
        out[at + 1] = (byte) text.length;
        System.arraycopy(text, 0, out, at + 2, text.length);
        return at + 2 + text.length;
    }

    /** Appends the tag if this codec has a key; returns the packet's length. */
    private int tagged(byte[] out, int n) {
        if (mac == null) {
            return n;
        }
        System.arraycopy(mac.tag(out, n), 0, out, n, TAG_BYTES);
        return n + TAG_BYTES;
    }

    /**
     * Reads one datagram of {@code length} bytes at the start of {@code in}, as a {@link Packet}:
     * {@link #parse} and the packet it found. For a receiver that keeps what arrives; a server on
     * the path of a flood calls {@link #parse} and reads the fields it needs instead.
     */
    public Packet decode(byte[] in, int length) throws MalformedPacketException {
        return switch (parse(in, length)) {
            case TYPE_HELLO -> new Packet.Hello(session, seq, text(in));
            case TYPE_WELCOME -> new Packet.Welcome(session, seq, text(in));
            case TYPE_PING -> new Packet.Ping(session, seq);
            case TYPE_PONG -> new Packet.Pong(session, seq, pongA, pongFingerprint);
            default -> throw rejection();
        };
    }

    /**
     * Checks one datagram of {@code length} bytes at the start of {@code in} and keeps its fields in
     * this codec, allocating nothing: a server fed garbage at the line's rate makes no garbage of
     * its own.
     *
     * @return the packet's type ({@link #TYPE_HELLO} … {@link #TYPE_PONG}), whose fields
     *         {@link #session()}, {@link #seq()}, {@link #text(byte[])}, {@link #pongA()} and
     *         {@link #pongFingerprint()} then hold; or {@link #REJECTED}, whose reason
     *         {@link #rejectedReason()} and {@link #rejection()} give
     */
    public int parse(byte[] in, int length) {
        rejected = null;
        if (length < HEADER_BYTES) {
            return reject(Rejection.SHORT_HEADER, length, HEADER_BYTES);
        }
        if (getInt(in, 0) != MAGIC) {
            return reject(Rejection.MAGIC, 0, 0);
        }
        int version = in[4] & 0xFF;
        if (version != VERSION) {
            return reject(Rejection.VERSION, version, VERSION);
        }
        int type = in[TYPE_OFFSET] & 0xFF;
        int flags = in[6] & 0xFF;
        int reserved = in[7] & 0xFF;
        if (type < TYPE_HELLO || type > TYPE_PONG || (flags & ~FLAG_TAG) != 0 || reserved != 0) {
            return reject(Rejection.HEADER, type, flags);
        }
        int end = checkTag(in, length, (flags & FLAG_TAG) != 0);
        if (end < 0) {
            return REJECTED;
        }
        session = getLong(in, SESSION_OFFSET);
        seq = getLong(in, SEQ_OFFSET);
        int position = HEADER_BYTES;
        switch (type) {
            case TYPE_HELLO -> {
                position = checkText(in, position, end);
                if (position < 0) {
                    return REJECTED;
                }
                if (end < HEADER_BYTES + HELLO_BODY) {
                    return reject(Rejection.SHORT_BODY, HEADER_BYTES + HELLO_BODY - position, end - position);
                }
                if (!zeros(in, position, HEADER_BYTES + HELLO_BODY)) {
                    return reject(Rejection.HELLO_PADDING, 0, 0);
                }
                position = HEADER_BYTES + HELLO_BODY;
            }
            case TYPE_WELCOME -> {
                position = checkText(in, position, end);
                if (position < 0) {
                    return REJECTED;
                }
            }
            case TYPE_PING -> {
                if (end - position < PING_PADDING) {
                    return reject(Rejection.SHORT_BODY, PING_PADDING, end - position);
                }
                if (!zeros(in, position, position + PING_PADDING)) {
                    return reject(Rejection.PING_PADDING, 0, 0);
                }
                position += PING_PADDING;
            }
            default -> {
                if (end - position < PONG_BODY) {
                    return reject(Rejection.SHORT_BODY, PONG_BODY, end - position);
                }
                pongA = getLong(in, position);
                pongFingerprint = getLong(in, position + 8);
                position += PONG_BODY;
            }
        }
        if (position < end) {
            return reject(Rejection.TRAILING, end - position, 0);
        }
        return type;
    }

    /** The session of the packet {@link #parse} last accepted. */
    public long session() {
        return session;
    }

    /** The sequence number of the packet {@link #parse} last accepted. */
    public long seq() {
        return seq;
    }

    /** The tick {@code a} of the pong {@link #parse} last accepted. */
    public long pongA() {
        return pongA;
    }

    /** The domain fingerprint of the pong {@link #parse} last accepted. */
    public long pongFingerprint() {
        return pongFingerprint;
    }

    /** The domain id of the hello or welcome {@link #parse} last accepted in {@code in} (allocates the string). */
    public String text(byte[] in) {
        return new String(in, textOffset, textLength, StandardCharsets.UTF_8);
    }

    /** Why {@link #parse} last returned {@link #REJECTED}; null after a packet it accepted. */
    public MalformedPacketException.Reason rejectedReason() {
        return rejected == null ? null : rejected.reason;
    }

    /** What {@link #parse} last rejected, as the exception {@link #decode} throws (the detail in words). */
    public MalformedPacketException rejection() {
        return new MalformedPacketException(rejected.reason, rejected.detail(rejectedA, rejectedB));
    }

    /** Verifies the tag if this codec has a key; returns where the body ends, or {@link #REJECTED}. */
    private int checkTag(byte[] in, int length, boolean tagged) {
        if (mac == null) {
            return tagged ? reject(Rejection.TAG_WITHOUT_KEY, 0, 0) : length;
        }
        if (!tagged) {
            return reject(Rejection.KEY_WITHOUT_TAG, 0, 0);
        }
        int end = length - TAG_BYTES;
        if (end < HEADER_BYTES) {
            return reject(Rejection.NO_ROOM_FOR_TAG, 0, 0);
        }
        byte[] expected = mac.tag(in, end);
        int difference = 0;
        for (int i = 0; i < TAG_BYTES; i++) {
            difference |= expected[i] ^ in[end + i]; // constant time, as MessageDigest.isEqual
        }
        return difference == 0 ? end : reject(Rejection.BAD_TAG, 0, 0);
    }

    /**
     * Checks the length-prefixed text at {@code position} (before {@code end}) and notes where it
     * lies; returns the position after it, or {@link #REJECTED}.
     */
    private int checkText(byte[] in, int position, int end) {
        if (end - position < 2) {
            return reject(Rejection.SHORT_BODY, 2, end - position);
        }
        int n = ((in[position] & 0xFF) << 8) | (in[position + 1] & 0xFF);
        position += 2;
        if (n > Packet.MAX_TEXT_BYTES) {
            return reject(Rejection.LONG_TEXT, n, 0);
        }
        if (end - position < n) {
            return reject(Rejection.SHORT_BODY, n, end - position);
        }
        int check = Utf8Token.check(in, position, n);
        if (check != Utf8Token.VALID) {
            return reject(check == Utf8Token.NOT_UTF8 ? Rejection.NOT_UTF8 : Rejection.BLANK_TEXT, 0, 0);
        }
        textOffset = position;
        textLength = n;
        return position + n;
    }

    private static boolean zeros(byte[] in, int from, int to) {
        for (int i = from; i < to; i++) {
            if (in[i] != 0) {
                return false;
            }
        }
        return true;
    }

    private int reject(Rejection why, int a, int b) {
        rejected = why;
        rejectedA = a;
        rejectedB = b;
        return REJECTED;
    }

    private static int getInt(byte[] in, int at) {
        return ((in[at] & 0xFF) << 24) | ((in[at + 1] & 0xFF) << 16) | ((in[at + 2] & 0xFF) << 8) | (in[at + 3] & 0xFF);
    }

    private static void putInt(byte[] out, int at, int v) {
        out[at] = (byte) (v >>> 24);
        out[at + 1] = (byte) (v >>> 16);
        out[at + 2] = (byte) (v >>> 8);
        out[at + 3] = (byte) v;
    }

    private static void putLong(byte[] out, int at, long v) {
        putInt(out, at, (int) (v >>> 32));
        putInt(out, at + 4, (int) v);
    }

    private static long getLong(byte[] in, int at) {
        return ((long) getInt(in, at) << 32) | (getInt(in, at + 4) & 0xFFFF_FFFFL);
    }

    /** Each way {@link #parse} rejects a datagram: its counted reason and its detail, formatted only when asked. */
    private enum Rejection {
        SHORT_HEADER(MalformedPacketException.Reason.TRUNCATED, "%d bytes, header needs %d"),
        MAGIC(MalformedPacketException.Reason.MAGIC, "not a dprof calibration packet"),
        VERSION(MalformedPacketException.Reason.VERSION,
                "protocol version %d (another dprof release); this one speaks version %d"),
        HEADER(MalformedPacketException.Reason.HEADER, "type %d, flags %d"),
        TAG_WITHOUT_KEY(MalformedPacketException.Reason.AUTH, "tagged packet, but no key is configured here"),
        KEY_WITHOUT_TAG(MalformedPacketException.Reason.AUTH, "untagged packet, but a key is configured here"),
        NO_ROOM_FOR_TAG(MalformedPacketException.Reason.TRUNCATED, "no room for the tag"),
        BAD_TAG(MalformedPacketException.Reason.AUTH, "bad tag (forged, or a different key)"),
        SHORT_BODY(MalformedPacketException.Reason.TRUNCATED, "body needs %d more bytes, has %d"),
        LONG_TEXT(MalformedPacketException.Reason.BODY, "text of %d bytes"),
        NOT_UTF8(MalformedPacketException.Reason.BODY, "text is not UTF-8"),
        BLANK_TEXT(MalformedPacketException.Reason.BODY, "empty text or text with blanks"),
        HELLO_PADDING(MalformedPacketException.Reason.BODY, "non-zero hello padding"),
        PING_PADDING(MalformedPacketException.Reason.BODY, "non-zero ping padding"),
        TRAILING(MalformedPacketException.Reason.BODY, "%d trailing bytes");

        final MalformedPacketException.Reason reason;
        private final String format;

        Rejection(MalformedPacketException.Reason reason, String format) {
            this.reason = reason;
            this.format = format;
        }

        String detail(int a, int b) {
            return String.format(Locale.ROOT, format, a, b);
        }
    }

    /**
     * The session and sequence number of a ping, read from its header without checking its tag:
     * what anyone on the path can see (a test bed's forger uses it). Empty for anything else.
     */
    static Optional<long[]> peekPing(byte[] in, int length) {
        if (length < HEADER_BYTES) {
            return Optional.empty();
        }
        ByteBuffer b = ByteBuffer.wrap(in, 0, length);
        if (b.getInt(0) != MAGIC || (b.get(4) & 0xFF) != VERSION || b.get(TYPE_OFFSET) != TYPE_PING) {
            return Optional.empty();
        }
        return Optional.of(new long[] {b.getLong(SESSION_OFFSET), b.getLong(SEQ_OFFSET)});
    }

    /** Whether this codec tags and checks packets (a key is configured). */
    public boolean authenticated() {
        return mac != null;
    }


}
