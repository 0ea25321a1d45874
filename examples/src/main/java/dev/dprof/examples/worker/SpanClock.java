package dev.dprof.examples.worker;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A worker's span: its wall time, the CPU time its whole process used meanwhile — every thread,
 * the application's and the JVM's (its compilers too), and a profiler's when one is attached — and
 * the time the JIT spent compiling: what an agent adds to the machine's work, whether or not it
 * lengthens the span
 * ({@code dprof bench overhead}). Create it before the span (that loads the management classes),
 * then {@link #begin} and {@link #end} around it, and {@link #lap} at the end of each iteration if
 * the program has them: {@code dprof bench overhead} tells the first iterations, where the JIT
 * compiles the loop, from the rest. The JVM reads the process's CPU time in 10 ms steps on Linux.
 */
public final class SpanClock {
    private final OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    private final CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
    private long startNanos;
    private long startCpu;
    private long startJit;
    private long[] laps = new long[64];
    private int lapCount;

    public SpanClock() {
        processCpuNanos();
    }

    public void begin() {
        startJit = compilationMillis();
        startCpu = processCpuNanos();
        startNanos = System.nanoTime();
    }

    /** Marks the end of a lap (an iteration); one thread at a time. */
    public void lap() {
        long now = System.nanoTime();
        if (lapCount == laps.length) {
            laps = Arrays.copyOf(laps, 2 * laps.length);
        }
        laps[lapCount++] = now;
    }

    /** Ends the span and says what it took. */
    public Span end() {
        long endNanos = System.nanoTime();
        List<Double> lapSeconds = new ArrayList<>(lapCount);
        for (int i = 0; i < lapCount; i++) {
            lapSeconds.add((laps[i] - (i == 0 ? startNanos : laps[i - 1])) / 1e9);
        }
        long endCpu = processCpuNanos();
        long endJit = compilationMillis();
        return new Span((endNanos - startNanos) / 1e9,
                startCpu < 0 || endCpu < 0 ? Double.NaN : (endCpu - startCpu) / 1e9,
                startJit < 0 || endJit < 0 ? Double.NaN : (endJit - startJit) / 1e3, lapSeconds);
    }

    private long compilationMillis() {
        return jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() : -1;
    }

    private long processCpuNanos() {
        return os instanceof com.sun.management.OperatingSystemMXBean hotspot ? hotspot.getProcessCpuTime() : -1;
    }
}
