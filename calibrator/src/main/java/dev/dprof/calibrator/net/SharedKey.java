package dev.dprof.calibrator.net;

import dev.dprof.settings.DprofSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.Optional;

/**
 * The secret a parent and its nodes share so that forged packets are rejected (HMAC-SHA256, see
 * {@link PacketCodec}). Without it anyone who can reach the port could feed a node a reply with a
 * made-up tick and so an unsound zero. Calibration uses one by default; running without takes an
 * explicit {@code --insecure} or {@code insecure: true} (docs/CALIBRATION.md, "Shared key").
 */
public final class SharedKey {
    /** Shorter keys are refused: a guessable key authenticates nothing. */
    public static final int MIN_BYTES = 16;
    /** The name of the key a command writes into its run folder when it starts both ends itself. */
    public static final String RUN_KEY_FILE = "calibration.key";
    /** Random bytes in a generated key (written as base64). */
    private static final int GENERATED_BYTES = 32;

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

    /**
     * Writes a new random key to {@code file} (32 bytes from {@link SecureRandom}, base64, readable
     * by its owner only where the file system has POSIX permissions) and returns it: for a command
     * that starts both the base and its nodes itself ({@code dprof demo}, the test bed), so that
     * their calibration is authenticated without any setup.
     *
     * @throws IOException if the file cannot be written (or already exists)
     */
    public static SharedKey generate(Path file) throws IOException {
        byte[] raw = new byte[GENERATED_BYTES];
        new SecureRandom().nextBytes(raw);
        byte[] text = Base64.getEncoder().encode(raw);
        try {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } catch (UnsupportedOperationException e) {
            Files.createFile(file);
        }
        Files.write(file, text);
        return new SharedKey(text);
    }

    /**
     * The key file named by {@value DprofSettings#CALIBRATION_KEY_FILE_ENV} in this process's environment, if the variable
     * is set and not blank.
     */
    public static Optional<Path> fileFromEnvironment() {
        return DprofSettings.calibrationKeyFile();
    }

    /**
     * The key calibration uses, by the one rule every entry point follows: the key file given
     * ({@code fileOption}), else the one {@value DprofSettings#CALIBRATION_KEY_FILE_ENV} names, else none if and only if
     * {@code insecure} was asked for explicitly.
     *
     * @param fileOption     how the key file is given here, for messages ({@code --key-file})
     * @param insecureOption how running without a key is asked for here ({@code --insecure})
     * @return the key, or empty when running without one was asked for: the caller then says so
     *         once ({@link #insecureLine})
     * @throws IllegalArgumentException one line: both given, no key at all, or a bad key file
     */
    public static Optional<SharedKey> choose(Optional<Path> file, boolean insecure, String fileOption,
                                             String insecureOption) {
        if (file.isPresent() && insecure) {
            throw new IllegalArgumentException(fileOption + " and " + insecureOption + " exclude each other");
        }
        Optional<Path> chosen = file.isPresent() || insecure ? file : fileFromEnvironment();
        if (chosen.isPresent()) {
            return Optional.of(read(chosen.get()));
        }
        if (insecure) {
            return Optional.empty();
        }
        throw new IllegalArgumentException("calibration needs a shared key: " + fileOption + " F or "
                + DprofSettings.CALIBRATION_KEY_FILE_ENV + "=F (make one with: head -c 32 /dev/urandom | base64 > F), or " + insecureOption
                + " to run without one, where anyone who can reach the port could forge zeros");
    }

    /** The one line a calibration end says when it runs without a key. */
    public static String insecureLine(String insecureOption) {
        return "calibration is not authenticated (" + insecureOption + "): anyone who can reach the calibration "
                + "port could forge zeros and so make bounds wrong";
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
