package dev.dprof.calibrator.net;

import java.security.DigestException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

/**
 * HMAC-SHA256 (RFC 2104) over one reused {@link MessageDigest}: the same tags as the JCA's
 * {@code Mac} for {@code HmacSHA256}, without its allocation — {@code Mac.doFinal} returns a new
 * array every time, and a server checks a tag for every datagram that reaches it, so under a flood
 * that would be garbage at the flood's rate. After construction nothing here allocates.
 *
 * <p>Not thread-safe: one per codec.
 */
final class HmacSha256 {
    /** SHA-256's block size: keys are padded (or first hashed) to it. */
    private static final int BLOCK_BYTES = 64;
    static final int TAG_BYTES = 32;

    private final MessageDigest sha;
    private final byte[] innerPad = new byte[BLOCK_BYTES];
    private final byte[] outerPad = new byte[BLOCK_BYTES];
    private final byte[] tag = new byte[TAG_BYTES];

    HmacSha256(byte[] key) {
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 unavailable in this JVM", e);
        }
        byte[] k = key.length > BLOCK_BYTES ? sha.digest(key) : key;
        for (int i = 0; i < BLOCK_BYTES; i++) {
            byte b = i < k.length ? k[i] : 0;
            innerPad[i] = (byte) (b ^ 0x36);
            outerPad[i] = (byte) (b ^ 0x5c);
        }
        if (k != key) {
            Arrays.fill(k, (byte) 0);
        }
    }

    /** The tag of {@code data[0, length)}, in an array this object reuses (valid until the next call). */
    byte[] tag(byte[] data, int length) {
        try {
            sha.update(innerPad);
            sha.update(data, 0, length);
            sha.digest(tag, 0, TAG_BYTES);
            sha.update(outerPad);
            sha.update(tag);
            sha.digest(tag, 0, TAG_BYTES);
            return tag;
        } catch (DigestException e) {
            throw new IllegalStateException(e); // the buffer is SHA-256's length: cannot happen
        }
    }
}
