package dev.dprof.examples.worker;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;

/**
 * A worker's span: its wall time, the CPU time its whole process used meanwhile — every thread,
 * the application's and the JVM's (its compilers too), and a profiler's when one is attached — and
 * the time the JIT spent compiling: what an agent adds to the machine's work, whether or not it
 * lengthens the span
 * ({@code dprof bench overhead}). Create it before the span (that loads the management classes),
 * then {@link #begin} and {@link #end} around it. The JVM reads the process's CPU time in 10 ms
 * steps on Linux.
 */
public final class SpanClock {
    private final OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    private final CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
    private long startNanos;
    private long startCpu;
    private long startJit;

    public SpanClock() {
        processCpuNanos();
    }

    public void begin() {
        startJit = compilationMillis();
        startCpu = processCpuNanos();
        startNanos = System.nanoTime();
    }

    /** Ends the span and says what it took. */
    public Span end() {
        long endNanos = System.nanoTime();
        long endCpu = processCpuNanos();
        long endJit = compilationMillis();
        return new Span((endNanos - startNanos) / 1e9,
                startCpu < 0 || endCpu < 0 ? Double.NaN : (endCpu - startCpu) / 1e9,
                startJit < 0 || endJit < 0 ? Double.NaN : (endJit - startJit) / 1e3);
    }

    private long compilationMillis() {
        return jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() : -1;
    }

    private long processCpuNanos() {
        return os instanceof com.sun.management.OperatingSystemMXBean hotspot ? hotspot.getProcessCpuTime() : -1;
    }
}
