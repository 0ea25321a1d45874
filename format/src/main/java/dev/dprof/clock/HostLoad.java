package dev.dprof.clock;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** This host's load: other work on a shared machine widens round trips and slows benchmarks. */
public final class HostLoad {
    private HostLoad() {
    }

    /** The 1, 5 and 15 minute load averages, or "unknown". */
    public static String average() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }
}
