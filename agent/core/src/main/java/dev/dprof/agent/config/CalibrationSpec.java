package dev.dprof.agent.config;

import java.util.Objects;

/**
 * The {@code calibration:} section: the calibration base to join and how often to calibrate.
 *
 * @param host        the base's host name or address, never empty (an IPv6 address is stored without brackets)
 * @param port        the base's port, 1..65535
 * @param intervalSec seconds between calibration rounds, &gt; 0 (default 10)
 */
public record CalibrationSpec(String host, int port, int intervalSec) {

    /** The default for {@link #intervalSec()}. */
    public static final int DEFAULT_INTERVAL_SEC = 10;

    public CalibrationSpec {
        Objects.requireNonNull(host, "host");
        if (host.isEmpty()) {
            throw new IllegalArgumentException("empty calibration host");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("calibration port out of range: " + port);
        }
        if (intervalSec <= 0) {
            throw new IllegalArgumentException("calibration interval must be > 0: " + intervalSec);
        }
    }
}
