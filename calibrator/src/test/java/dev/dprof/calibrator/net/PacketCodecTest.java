package dev.dprof.calibrator.net;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PacketCodecTest {
    private static final SharedKey KEY = SharedKey.of("0123456789abcdef-key-A".getBytes(StandardCharsets.UTF_8));
    private static final SharedKey OTHER = SharedKey.of("0123456789abcdef-key-B".getBytes(StandardCharsets.UTF_8));
    private static final List<Packet> SAMPLES = List.of(
            new Packet.Hello(-7L, 0, "tsc@boot/sim(rate=1.3,offset=5,tsc-hz=1000000000)"),
            new Packet.Welcome(Long.MAX_VALUE, 1, "tsc@b00t-id"),
            new Packet.Ping(123456789L, Long.MIN_VALUE),
            new Packet.Pong(42L, 99L, Long.MIN_VALUE + 1, PacketCodec.fingerprint("tsc@x")));

    private static byte[] encode(PacketCodec codec, Packet p) {
        byte[] buf = new byte[PacketCodec.MAX_BYTES];
        return Arrays.copyOf(buf, codec.encode(p, buf));
    }

    private static MalformedPacketException.Reason rejection(PacketCodec codec, byte[] bytes) {
        return assertThrows(MalformedPacketException.class, () -> codec.decode(bytes, bytes.length)).reason();
    }

    @Test
    void everyTypeRoundTripsWithAndWithoutKey() throws Exception {
        for (PacketCodec codec : List.of(PacketCodec.open(), PacketCodec.keyed(KEY))) {
            for (Packet p : SAMPLES) {
                byte[] bytes = encode(codec, p);
                assertEquals(p, codec.decode(bytes, bytes.length));
            }
        }
    }

    @Test
    void headerLayoutIsTheDocumentedOne() {
        byte[] ping = encode(PacketCodec.open(), new Packet.Ping(1, 2));
        assertEquals(PacketCodec.HEADER_BYTES + 16, ping.length);
        assertArrayEquals("DPRC".getBytes(StandardCharsets.US_ASCII), Arrays.copyOf(ping, 4));
        assertEquals(2, ping[4]);
        assertEquals(3, ping[5]);
        assertEquals(0, ping[6]);
        byte[] pong = encode(PacketCodec.keyed(KEY), new Packet.Pong(1, 2, 3, 4));
        assertEquals(PacketCodec.HEADER_BYTES + 16 + PacketCodec.TAG_BYTES, pong.length);
        assertEquals(PacketCodec.FLAG_TAG, pong[6]);
        assertEquals(ping.length, encode(PacketCodec.open(), new Packet.Pong(1, 2, 3, 4)).length,
                "a pong is no larger than the ping it answers");
    }

    @Test
    void noReplyIsLargerThanItsRequest() throws Exception {
        for (PacketCodec codec : List.of(PacketCodec.open(), PacketCodec.keyed(KEY))) {
            byte[] shortest = encode(codec, new Packet.Hello(1, 2, "h"));
            byte[] longest = encode(codec, new Packet.Welcome(1, 2, "w".repeat(Packet.MAX_TEXT_BYTES)));
            assertTrue(longest.length <= shortest.length, longest.length + " > " + shortest.length);
            assertEquals(new Packet.Hello(1, 2, "h"), codec.decode(shortest, shortest.length));
            assertEquals(encode(codec, new Packet.Ping(1, 2)).length, encode(codec, new Packet.Pong(1, 2, 3, 4)).length);
        }
        byte[] hello = encode(PacketCodec.open(), new Packet.Hello(1, 2, "h"));
        hello[hello.length - 1] = 7;
        assertEquals(MalformedPacketException.Reason.BODY, rejection(PacketCodec.open(), hello));
    }

    @Test
    void aPingsHeaderCanBeReadWithoutTheKeyButNotForged() {
        byte[] ping = encode(PacketCodec.keyed(KEY), new Packet.Ping(-5, 77));
        assertArrayEquals(new long[] {-5, 77}, PacketCodec.peekPing(ping, ping.length).orElseThrow());
        byte[] pong = encode(PacketCodec.keyed(KEY), new Packet.Pong(-5, 77, 1, 2));
        assertTrue(PacketCodec.peekPing(pong, pong.length).isEmpty());
        byte[] forged = encode(PacketCodec.open(), new Packet.Pong(-5, 77, 1, 2));
        assertEquals(MalformedPacketException.Reason.AUTH, rejection(PacketCodec.keyed(KEY), forged));
    }

    @Test
    void everyTruncationIsRejected() {
        for (PacketCodec codec : List.of(PacketCodec.open(), PacketCodec.keyed(KEY))) {
            for (Packet p : SAMPLES) {
                byte[] bytes = encode(codec, p);
                for (int n = 0; n < bytes.length; n++) {
                    byte[] prefix = Arrays.copyOf(bytes, n);
                    rejection(codec, prefix);
                }
            }
        }
    }

    @Test
    void trailingBytesAreRejected() {
        byte[] ping = encode(PacketCodec.open(), new Packet.Ping(1, 2));
        assertEquals(MalformedPacketException.Reason.BODY, rejection(PacketCodec.open(), Arrays.copyOf(ping, ping.length + 1)));
    }

    @Test
    void foreignMagicAndVersionsAreNamed() {
        byte[] ping = encode(PacketCodec.open(), new Packet.Ping(1, 2));
        byte[] magic = ping.clone();
        magic[0] = 'X';
        assertEquals(MalformedPacketException.Reason.MAGIC, rejection(PacketCodec.open(), magic));
        byte[] version = ping.clone();
        version[4] = 1; // an older dprof: the message names both versions
        assertEquals(MalformedPacketException.Reason.VERSION, rejection(PacketCodec.open(), version));
        MalformedPacketException old = assertThrows(MalformedPacketException.class,
                () -> PacketCodec.open().decode(version, version.length));
        assertTrue(old.getMessage().contains("version 1") && old.getMessage().contains("version 2"), old.getMessage());
        byte[] type = ping.clone();
        type[5] = 9;
        assertEquals(MalformedPacketException.Reason.HEADER, rejection(PacketCodec.open(), type));
        byte[] padding = ping.clone();
        padding[ping.length - 1] = 1;
        assertEquals(MalformedPacketException.Reason.BODY, rejection(PacketCodec.open(), padding));
    }

    @Test
    void forgedPacketsAreRejected() {
        PacketCodec keyed = PacketCodec.keyed(KEY);
        for (Packet p : SAMPLES) {
            byte[] genuine = encode(keyed, p);
            assertEquals(MalformedPacketException.Reason.AUTH, rejection(keyed, encode(PacketCodec.keyed(OTHER), p)),
                    "another key");
            assertEquals(MalformedPacketException.Reason.AUTH, rejection(keyed, encode(PacketCodec.open(), p)),
                    "no tag");
            assertEquals(MalformedPacketException.Reason.AUTH, rejection(PacketCodec.open(), genuine),
                    "a tag where none is expected");
            for (int bit = 0; bit < genuine.length * 8; bit++) {
                byte[] flipped = genuine.clone();
                flipped[bit / 8] ^= (byte) (1 << (bit % 8));
                rejection(keyed, flipped);
            }
        }
    }

    @Test
    void aForgedTickIsCaughtEvenWithAValidLookingHeader() {
        PacketCodec keyed = PacketCodec.keyed(KEY);
        byte[] pong = encode(keyed, new Packet.Pong(5, 6, 1000, 7));
        pong[PacketCodec.HEADER_BYTES + 7] ^= 1; // a = 1001
        assertEquals(MalformedPacketException.Reason.AUTH, rejection(keyed, pong));
    }

    @Test
    void randomGarbageNeverEscapesAsAnotherException() {
        Random random = new Random(20190601L);
        PacketCodec open = PacketCodec.open();
        PacketCodec keyed = PacketCodec.keyed(KEY);
        byte[] header = encode(open, new Packet.Ping(0, 0));
        for (int i = 0; i < 200_000; i++) {
            byte[] bytes = new byte[random.nextInt(120)];
            random.nextBytes(bytes);
            if (i % 2 == 0) {
                // a valid magic and version, so the fuzz reaches the body and the tag checks
                System.arraycopy(header, 0, bytes, 0, Math.min(5, bytes.length));
            }
            for (PacketCodec codec : List.of(open, keyed)) {
                try {
                    codec.decode(bytes, bytes.length);
                } catch (MalformedPacketException expected) {
                    assertNotEquals(null, expected.reason());
                }
            }
        }
    }

    @Test
    void textsThatCannotBeFileTokensAreRefused() {
        PacketCodec codec = PacketCodec.open();
        byte[] buf = new byte[PacketCodec.MAX_BYTES];
        assertThrows(IllegalArgumentException.class, () -> codec.encode(new Packet.Hello(1, 1, "has blank"), buf));
        assertThrows(IllegalArgumentException.class, () -> codec.encode(new Packet.Hello(1, 1, ""), buf));
        assertThrows(IllegalArgumentException.class, () -> codec.encode(new Packet.Hello(1, 1, "x".repeat(513)), buf));
        byte[] hello = encode(codec, new Packet.Hello(1, 1, "abc"));
        hello[hello.length - 2] = ' ';
        assertEquals(MalformedPacketException.Reason.BODY, rejection(codec, hello));
        hello[hello.length - 2] = (byte) 0xC3; // a lone UTF-8 lead byte
        assertEquals(MalformedPacketException.Reason.BODY, rejection(codec, hello));
    }

    @Test
    void fingerprintsTellDomainsApart() {
        assertEquals(PacketCodec.fingerprint("tsc@a"), PacketCodec.fingerprint("tsc@a"));
        assertNotEquals(PacketCodec.fingerprint("tsc@a"), PacketCodec.fingerprint("tsc@b"));
    }

    @Test
    void keyFilesAreTrimmedAndShortKeysRefused(@TempDir Path dir) throws Exception {
        Path good = dir.resolve("good.key");
        Files.writeString(good, "  0123456789abcdef-key-A\n");
        PacketCodec fromFile = PacketCodec.keyed(SharedKey.read(good));
        byte[] bytes = encode(PacketCodec.keyed(KEY), SAMPLES.get(2));
        assertEquals(SAMPLES.get(2), fromFile.decode(bytes, bytes.length));
        Path shortKey = dir.resolve("short.key");
        Files.writeString(shortKey, "tooshort\n");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SharedKey.read(shortKey));
        assertTrue(e.getMessage().contains("short.key"), e.getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> SharedKey.read(dir.resolve("missing.key")))
                .getMessage().contains("does not exist"));
    }

    @Test
    void theTagIsTheJdksHmacSha256() throws Exception {
        Random random = new Random(5);
        for (int i = 0; i < 300; i++) {
            byte[] key = new byte[SharedKey.MIN_BYTES + random.nextInt(120)]; // shorter and longer than a block
            random.nextBytes(key);
            byte[] data = new byte[random.nextInt(PacketCodec.MAX_BYTES)];
            random.nextBytes(data);
            javax.crypto.Mac jdk = javax.crypto.Mac.getInstance("HmacSHA256");
            jdk.init(new javax.crypto.spec.SecretKeySpec(key, "HmacSHA256"));
            HmacSha256 ours = new HmacSha256(key);
            assertArrayEquals(jdk.doFinal(data), ours.tag(data, data.length));
            assertArrayEquals(jdk.doFinal(data), ours.tag(data, data.length), "the same again: its state is reset");
        }
    }

    @Test
    void textsAreCheckedAsTheJdkDecoderAndTheTokenRuleWould() {
        Random random = new Random(17);
        byte[] interesting = {0, 0x09, 0x20, 0x41, 0x7f, (byte) 0x80, (byte) 0xbf, (byte) 0xc0, (byte) 0xc1, (byte) 0xc2,
            (byte) 0xdf, (byte) 0xe0, (byte) 0xa0, (byte) 0xed, (byte) 0x9f, (byte) 0xef, (byte) 0xf0, (byte) 0x90,
            (byte) 0xf4, (byte) 0x8f, (byte) 0xf5, (byte) 0xff, (byte) 0x85, (byte) 0xe3, (byte) 0x80};
        for (int i = 0; i < 200_000; i++) {
            byte[] b = new byte[random.nextInt(7)];
            for (int k = 0; k < b.length; k++) {
                b[k] = random.nextBoolean() ? interesting[random.nextInt(interesting.length)] : (byte) random.nextInt(256);
            }
            assertEquals(reference(b), Utf8Token.check(b, 0, b.length), () -> java.util.HexFormat.of().formatHex(b));
        }
        // every code point once, as the JDK encodes it
        for (int c = 0; c <= Character.MAX_CODE_POINT; c++) {
            if (c < Character.MIN_SURROGATE || c > Character.MAX_SURROGATE) {
                byte[] b = new String(Character.toChars(c)).getBytes(StandardCharsets.UTF_8);
                assertEquals(reference(b), Utf8Token.check(b, 0, b.length), "U+" + Integer.toHexString(c));
            }
        }
    }

    /** The check as the codec made it before it checked in place: the JDK's strict decoder, then the token rule. */
    private static int reference(byte[] b) {
        String s;
        try {
            s = StandardCharsets.UTF_8.newDecoder().onMalformedInput(java.nio.charset.CodingErrorAction.REPORT)
                    .onUnmappableCharacter(java.nio.charset.CodingErrorAction.REPORT)
                    .decode(java.nio.ByteBuffer.wrap(b)).toString();
        } catch (java.nio.charset.CharacterCodingException e) {
            return Utf8Token.NOT_UTF8;
        }
        boolean token = !s.isEmpty() && s.codePoints().noneMatch(c -> c <= ' ' || Character.isWhitespace(c)
                || Character.isISOControl(c));
        return token ? Utf8Token.VALID : Utf8Token.NOT_A_TOKEN;
    }
}
