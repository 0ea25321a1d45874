package dev.dprof.agent.config;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * The {@code calibration:} section: the calibration base to join, how often to calibrate, and
 * how the exchange is authenticated (docs/CALIBRATION.md, "Shared key").
 *
 * @param host        the base's host name or address, never empty (an IPv6 address is stored without brackets)
 * @param port        the base's port, 1..65535
 * @param intervalSec seconds between calibration rounds, &gt; 0 (default 10)
 * @param keyFile     the key shared with the base ({@code keyFile:}); when absent the environment's
 *                    {@code DPROF_CALIBRATION_KEY_FILE} names it
 * @param insecure    {@code insecure: true}: run without a key if none is named; never together with a key file
 */
public record CalibrationSpec(String host, int port, int intervalSec, Optional<Path> keyFile, boolean insecure) {

    /** The default for {@link #intervalSec()}. */
    public static final int DEFAULT_INTERVAL_SEC = 10;

    public CalibrationSpec {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(keyFile, "keyFile");
        if (host.isEmpty()) {
            throw new IllegalArgumentException("empty calibration host");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("calibration port out of range: " + port);
        }
        if (intervalSec <= 0) {
            throw new IllegalArgumentException("calibration interval must be > 0: " + intervalSec);
        }
        if (keyFile.isPresent() && insecure) {
            throw new IllegalArgumentException("a calibration key file and insecure: true exclude each other");
        }
    }

    /** A base with no key named in the YAML (the environment may still name one). */
    public CalibrationSpec(String host, int port, int intervalSec) {
        this(host, port, intervalSec, Optional.empty(), false);
    }
}
