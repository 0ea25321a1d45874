package dev.dprof.agent.sink;

import dev.dprof.agent.bootstrap.NativeClock;
import dev.dprof.format.ClockCheck;
import dev.dprof.format.ClockCheck.Answer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Gathers the facts of the process's {@link ClockCheck}: the CPU's invariance bit, the counter flags of
 * {@code /proc/cpuinfo}, the kernel's clocksources and the per-CPU check ({@link NativeClock#checkCounters}).
 * The drainer runs it once, after its warm-up, so {@code main} does not wait for it.
 *
 * <h2>Implementation notes</h2>
 * Never throws: what cannot be read is recorded as unknown (and judged by the signals that remain).
 * The per-CPU check spins one native thread per CPU until {@link #ENOUGH_CROSSINGS} comparisons, at most
 * {@link #CHECK_NANOS}; on a loaded machine the threads may rarely run at once, and the crossings
 * recorded say how many comparisons were made.
 */
final class CounterCheck {
    /**
     * Comparisons with fresh reads of other CPUs after which the per-CPU check ends (a few ms on a
     * 2-CPU machine). A count rather than a time: on a busy machine the pinned threads seldom run at
     * once, and a fixed time may compare almost nothing.
     */
    static final long ENOUGH_CROSSINGS = 2_000;
    /** The longest the per-CPU check runs, on a machine too busy to reach {@link #ENOUGH_CROSSINGS}. */
    static final long CHECK_NANOS = 20_000_000;

    private static final Path CPUINFO = Path.of("/proc/cpuinfo");
    private static final Path CLOCKSOURCE = Path.of("/sys/devices/system/clocksource/clocksource0");

    private CounterCheck() {
    }

    /**
     * Runs the check for the counter the probes read.
     *
     * @param nativeCounter whether the probes read the CPU's counter through the native library
     *                      (else System.nanoTime, which needs no check)
     */
    static ClockCheck run(boolean nativeCounter) {
        if (!nativeCounter) {
            return new ClockCheck("nanoTime", Answer.UNKNOWN, null, "", "", 0, 0, 0, 0, 0);
        }
        String counter = NativeClock.counterName();
        Answer invariant = NativeClock.invariantTsc() ? Answer.YES : Answer.NO;
        String flags = counterFlags(read(CPUINFO));
        String current = oneLine(read(CLOCKSOURCE.resolve("current_clocksource")));
        String available = oneLine(read(CLOCKSOURCE.resolve("available_clocksource")));
        long[] out = new long[NativeClock.CHECK_FIELDS];
        if (!NativeClock.checkCounters(CHECK_NANOS, ENOUGH_CROSSINGS, out)) {
            out = new long[NativeClock.CHECK_FIELDS];
        }
        return new ClockCheck(counter, invariant, flags, current, available, (int) out[NativeClock.CHECK_CPUS],
                out[NativeClock.CHECK_READS], out[NativeClock.CHECK_CROSSINGS], out[NativeClock.CHECK_OUT_OF_ORDER],
                out[NativeClock.CHECK_MAX_BACKWARD]);
    }

    /**
     * The counter flags ({@link ClockCheck#COUNTER_FLAGS}) that every CPU's {@code flags} line of a
     * {@code /proc/cpuinfo} text lists, space-separated; null if the text is null or has no flags
     * line (not x86, or not readable).
     */
    static String counterFlags(String cpuinfo) {
        if (cpuinfo == null) {
            return null;
        }
        Set<String> common = null;
        for (String line : cpuinfo.split("\n")) {
            int colon = line.indexOf(':');
            if (colon < 0 || !line.substring(0, colon).trim().equals("flags")) {
                continue;
            }
            Set<String> flags = new LinkedHashSet<>(List.of(line.substring(colon + 1).trim().split("\\s+")));
            if (common == null) {
                common = flags;
            } else {
                common.retainAll(flags);
            }
        }
        if (common == null) {
            return null;
        }
        List<String> found = new ArrayList<>();
        for (String f : ClockCheck.COUNTER_FLAGS) {
            if (common.contains(f)) {
                found.add(f);
            }
        }
        return String.join(" ", found);
    }

    private static String oneLine(String text) {
        return text == null ? "" : text.trim().replaceAll("\\s+", " ");
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
