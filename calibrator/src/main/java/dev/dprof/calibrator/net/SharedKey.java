package dev.dprof.calibrator.net;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The secret a parent and its nodes share so that forged packets are rejected (HMAC-SHA256, see
 * {@link PacketCodec}). Without it anyone who can reach the port could feed a node a reply with a
 * made-up tick and so an unsound zero.
 */
public final class SharedKey {
    /** Shorter keys are refused: a guessable key authenticates nothing. */
    public static final int MIN_BYTES = 16;

    private final byte[] bytes;

    private SharedKey(byte[] bytes) {
        this.bytes = bytes;
    }

    /**
     * Reads a key file: its bytes with leading and trailing ASCII whitespace removed (so a trailing
     * newline does not matter), at least {@link #MIN_BYTES} long.
     *
     * @throws IllegalArgumentException with one line naming the file and the problem
     */
    public static SharedKey read(Path file) {
        byte[] raw;
        try {
            raw = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("key file " + file + " does not exist");
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read key file " + file + ": " + e.getMessage());
        }
        int from = 0;
        int to = raw.length;
        while (from < to && isBlank(raw[from])) {
            from++;
        }
        while (to > from && isBlank(raw[to - 1])) {
            to--;
        }
        if (to - from < MIN_BYTES) {
            throw new IllegalArgumentException("key file " + file + " holds " + (to - from) + " bytes; use at least "
                    + MIN_BYTES + " (e.g. head -c 32 /dev/urandom | base64 > " + file + ")");
        }
        return new SharedKey(Arrays.copyOfRange(raw, from, to));
    }

    /** A key from bytes already in memory (tests, embedding). */
    public static SharedKey of(byte[] bytes) {
        if (bytes.length < MIN_BYTES) {
            throw new IllegalArgumentException("a key needs at least " + MIN_BYTES + " bytes");
        }
        return new SharedKey(bytes.clone());
    }

    byte[] bytes() {
        return bytes.clone();
    }

    private static boolean isBlank(byte b) {
        return b == ' ' || b == '\n' || b == '\r' || b == '\t';
    }
}
