package dev.dprof.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.openjdk.jmh.util.Version;

/** What the figures were measured on, for the report and the JSON. */
final class Machine {
    static final String NOTE = "shared VM, no CPU pinning (taskset not used): the benchmark thread, the agent's"
            + " drainer, JIT and GC threads share the machine's cores";

    private Machine() {
    }

    static String describe() {
        return "JDK " + Runtime.version() + ", " + Runtime.getRuntime().availableProcessors() + " CPUs ("
                + cpuModel() + "), " + System.getProperty("os.name") + " " + System.getProperty("os.version");
    }

    static String cpuModel() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    return line.substring(line.indexOf(':') + 1).trim();
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux, or unreadable: say so
        }
        return "unknown CPU";
    }

    /** See {@link dev.dprof.clock.HostLoad#average()}. */
    static String loadAverage() {
        return dev.dprof.clock.HostLoad.average();
    }

    static String jmhVersion() {
        String v = Version.getPlainVersion();
        return v == null ? "1.37" : v;
    }
}
