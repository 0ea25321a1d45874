package dev.dprof.calibrator.net;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Encodes and decodes {@link Packet}s (layout in {@code docs/CALIBRATION.md}): a 24-byte header
 * (magic {@code DPRC}, version, type, flags, reserved, session, seq), a fixed body per type, and,
 * when the two sides share a key, a 16-byte HMAC-SHA256 tag over everything before it. Decoding
 * checks every byte and never throws anything but {@link MalformedPacketException}, so a server
 * fed garbage only counts it.
 *
 * <p>Every request is at least as large as its reply (a ping is padded to a pong's size, a hello
 * to the largest welcome), so a server cannot be used to amplify a spoofed request's traffic.
 * Version 2 padded the hello; a version-1 peer is rejected with {@code VERSION}, which names both
 * versions.
 *
 * <p>Not thread-safe (it holds a {@link Mac}): one codec per thread.
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

    private static final int TYPE_HELLO = 1;
    private static final int TYPE_WELCOME = 2;
    private static final int TYPE_PING = 3;
    private static final int TYPE_PONG = 4;
    /** A ping is padded to a pong's size: a reply is never larger than its request. */
    private static final int PING_PADDING = 16;
    private static final int PONG_BODY = 16;
    /** A hello's body is its text padded to the longest a welcome can be: a welcome is never larger. */
    static final int HELLO_BODY = 2 + Packet.MAX_TEXT_BYTES;
    /** Offsets of the type, the session and the sequence number in the header. */
    static final int TYPE_OFFSET = 5;
    static final int SESSION_OFFSET = 8;
    static final int SEQ_OFFSET = 16;

    private final Optional<Mac> mac;
    private final byte[] tag = new byte[32];

    private PacketCodec(Optional<Mac> mac) {
        this.mac = mac;
    }

    /** A codec without authentication: packets carry no tag, and tagged packets are rejected. */
    public static PacketCodec open() {
        return new PacketCodec(Optional.empty());
    }

    /** A codec that tags every packet and accepts only packets with a valid tag under {@code key}. */
    public static PacketCodec keyed(SharedKey key) {
        try {
            Mac m = Mac.getInstance("HmacSHA256");
            m.init(new SecretKeySpec(key.bytes(), "HmacSHA256"));
            return new PacketCodec(Optional.of(m));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 unavailable in this JVM", e);
        }
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
        ByteBuffer b = ByteBuffer.wrap(out);
        b.putInt(MAGIC).put((byte) VERSION).put((byte) type(p)).put((byte) (mac.isPresent() ? FLAG_TAG : 0))
                .put((byte) 0).putLong(p.session()).putLong(p.seq());
        if (p instanceof Packet.Hello h) {
            putText(b, h.domainId());
            Arrays.fill(out, b.position(), HEADER_BYTES + HELLO_BODY, (byte) 0);
            b.position(HEADER_BYTES + HELLO_BODY);
        } else if (p instanceof Packet.Welcome w) {
            putText(b, w.domainId());
        } else if (p instanceof Packet.Ping) {
            b.put(new byte[PING_PADDING]);
        } else if (p instanceof Packet.Pong q) {
            b.putLong(q.a()).putLong(q.domainFingerprint());
        }
        int n = b.position();
        if (mac.isPresent()) {
            computeTag(out, n);
            System.arraycopy(tag, 0, out, n, TAG_BYTES);
            n += TAG_BYTES;
        }
        return n;
    }

    /** Reads one datagram of {@code length} bytes at the start of {@code in}. */
    public Packet decode(byte[] in, int length) throws MalformedPacketException {
        if (length < HEADER_BYTES) {
            throw reject(MalformedPacketException.Reason.TRUNCATED, length + " bytes, header needs " + HEADER_BYTES);
        }
        ByteBuffer b = ByteBuffer.wrap(in, 0, length);
        if (b.getInt() != MAGIC) {
            throw reject(MalformedPacketException.Reason.MAGIC, "not a dprof calibration packet");
        }
        int version = b.get() & 0xFF;
        if (version != VERSION) {
            throw reject(MalformedPacketException.Reason.VERSION, "protocol version " + version
                    + " (another dprof release); this one speaks version " + VERSION);
        }
        int type = b.get() & 0xFF;
        int flags = b.get() & 0xFF;
        int reserved = b.get() & 0xFF;
        if (type < TYPE_HELLO || type > TYPE_PONG || (flags & ~FLAG_TAG) != 0 || reserved != 0) {
            throw reject(MalformedPacketException.Reason.HEADER, "type " + type + ", flags " + flags);
        }
        int end = checkTag(in, length, (flags & FLAG_TAG) != 0);
        b.limit(end);
        long session = b.getLong();
        long seq = b.getLong();
        Packet p = switch (type) {
            case TYPE_HELLO -> {
                String text = getText(b);
                need(b, HEADER_BYTES + HELLO_BODY - b.position());
                while (b.position() < HEADER_BYTES + HELLO_BODY) {
                    if (b.get() != 0) {
                        throw reject(MalformedPacketException.Reason.BODY, "non-zero hello padding");
                    }
                }
                yield new Packet.Hello(session, seq, text);
            }
            case TYPE_WELCOME -> new Packet.Welcome(session, seq, getText(b));
            case TYPE_PING -> {
                need(b, PING_PADDING);
                for (int i = 0; i < PING_PADDING; i++) {
                    if (b.get() != 0) {
                        throw reject(MalformedPacketException.Reason.BODY, "non-zero ping padding");
                    }
                }
                yield new Packet.Ping(session, seq);
            }
            default -> {
                need(b, PONG_BODY);
                yield new Packet.Pong(session, seq, b.getLong(), b.getLong());
            }
        };
        if (b.hasRemaining()) {
            throw reject(MalformedPacketException.Reason.BODY, b.remaining() + " trailing bytes");
        }
        return p;
    }

    /** Verifies the tag if this codec has a key; returns where the body ends. */
    private int checkTag(byte[] in, int length, boolean tagged) throws MalformedPacketException {
        if (mac.isEmpty()) {
            if (tagged) {
                throw reject(MalformedPacketException.Reason.AUTH, "tagged packet, but no key is configured here");
            }
            return length;
        }
        if (!tagged) {
            throw reject(MalformedPacketException.Reason.AUTH, "untagged packet, but a key is configured here");
        }
        int end = length - TAG_BYTES;
        if (end < HEADER_BYTES) {
            throw reject(MalformedPacketException.Reason.TRUNCATED, "no room for the tag");
        }
        computeTag(in, end);
        if (!MessageDigest.isEqual(Arrays.copyOf(tag, TAG_BYTES), Arrays.copyOfRange(in, end, length))) {
            throw reject(MalformedPacketException.Reason.AUTH, "bad tag (forged, or a different key)");
        }
        return end;
    }

    private void computeTag(byte[] data, int length) {
        Mac m = mac.orElseThrow();
        m.update(data, 0, length);
        try {
            m.doFinal(tag, 0);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static int type(Packet p) {
        if (p instanceof Packet.Hello) {
            return TYPE_HELLO;
        }
        if (p instanceof Packet.Welcome) {
            return TYPE_WELCOME;
        }
        return p instanceof Packet.Ping ? TYPE_PING : TYPE_PONG;
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
        return mac.isPresent();
    }

    private static void putText(ByteBuffer b, String s) {
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        if (!validText(s) || bytes.length > Packet.MAX_TEXT_BYTES) {
            throw new IllegalArgumentException("a packet text must be 1.." + Packet.MAX_TEXT_BYTES
                    + " UTF-8 bytes without blanks: '" + s + "'");
        }
        b.putShort((short) bytes.length).put(bytes);
    }

    private static String getText(ByteBuffer b) throws MalformedPacketException {
        need(b, 2);
        int n = b.getShort() & 0xFFFF;
        if (n > Packet.MAX_TEXT_BYTES) {
            throw reject(MalformedPacketException.Reason.BODY, "text of " + n + " bytes");
        }
        need(b, n);
        ByteBuffer slice = b.slice();
        slice.limit(n);
        b.position(b.position() + n);
        CharBuffer chars;
        try {
            chars = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(slice);
        } catch (CharacterCodingException e) {
            throw reject(MalformedPacketException.Reason.BODY, "text is not UTF-8");
        }
        String s = chars.toString();
        if (!validText(s)) {
            throw reject(MalformedPacketException.Reason.BODY, "empty text or text with blanks");
        }
        return s;
    }

    /** Texts end up as tokens of a calibration file: non-empty, no blanks or control characters. */
    private static boolean validText(String s) {
        return !s.isEmpty() && s.codePoints().noneMatch(c -> c <= ' ' || Character.isWhitespace(c)
                || Character.isISOControl(c));
    }

    private static void need(ByteBuffer b, int n) throws MalformedPacketException {
        if (b.remaining() < n) {
            throw reject(MalformedPacketException.Reason.TRUNCATED, "body needs " + n + " more bytes, has "
                    + b.remaining());
        }
    }

    private static MalformedPacketException reject(MalformedPacketException.Reason reason, String detail) {
        return new MalformedPacketException(reason, detail);
    }
}
