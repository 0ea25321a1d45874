package dev.dprof.calibrator.net;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * How a node calibrates against its parent. The defaults follow DProf §3.2: many round trips per
 * epoch so that one of them is tight, spaced so they do not queue behind each other, repeated
 * through the run so the consolidator can bound the relative frequency between epochs.
 *
 * @param parent         the parent's address
 * @param outDir         where the node's {@code .cal} file goes
 * @param intervalMillis time between the starts of two epochs, &gt; 0
 * @param burstSize      round trips per epoch, 1..4096
 * @param pacingMicros   pause between two round trips of an epoch, &ge; 0
 * @param timeoutMillis  how long a round trip waits for its reply before it counts as lost, &gt; 0
 * @param key            the shared key, if the parent uses one
 * @param epochLog       receives one line per epoch (pass {@code s -> {}} to stay quiet)
 * @param warn           receives one line when calibration stops on an error
 */
public record NodeSettings(HostPort parent, Path outDir, long intervalMillis, int burstSize, long pacingMicros,
                           long timeoutMillis, Optional<SharedKey> key, Consumer<String> epochLog,
                           Consumer<String> warn) {
    public static final int DEFAULT_INTERVAL_SEC = 10;
    public static final int DEFAULT_BURST = 64;
    public static final long DEFAULT_PACING_MICROS = 200;
    public static final long DEFAULT_TIMEOUT_MILLIS = 100;

    public NodeSettings {
        Objects.requireNonNull(parent, "parent");
        Objects.requireNonNull(outDir, "outDir");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(epochLog, "epochLog");
        Objects.requireNonNull(warn, "warn");
        if (intervalMillis <= 0) {
            throw new IllegalArgumentException("interval must be > 0, got " + intervalMillis + " ms");
        }
        if (burstSize < 1 || burstSize > 4096) {
            throw new IllegalArgumentException("burst must be in 1..4096, got " + burstSize);
        }
        if (pacingMicros < 0) {
            throw new IllegalArgumentException("pacing must be >= 0, got " + pacingMicros + " µs");
        }
        if (timeoutMillis <= 0 || timeoutMillis > 60_000) {
            throw new IllegalArgumentException("timeout must be in 1..60000 ms, got " + timeoutMillis);
        }
    }
}
