package dev.dprof.examples.worker;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;

/**
 * A worker's span: its wall time, and the CPU time its whole process used meanwhile — every thread,
 * the application's and the JVM's (its compilers too), and a profiler's when one is attached: what
 * an agent adds to the machine's work, whether or not it lengthens the span
 * ({@code dprof bench overhead}). Create it before the span (that loads the management classes),
 * then {@link #begin} and {@link #end} around it. The JVM reads the process's CPU time in 10 ms
 * steps on Linux.
 */
public final class SpanClock {
    private final OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    private long startNanos;
    private long startCpu;
    private long endNanos;
    private long endCpu;

    public SpanClock() {
        processCpuNanos();
    }

    public void begin() {
        startCpu = processCpuNanos();
        startNanos = System.nanoTime();
    }

    public void end() {
        endNanos = System.nanoTime();
        endCpu = processCpuNanos();
    }

    public double seconds() {
        return (endNanos - startNanos) / 1e9;
    }

    /** The process's CPU seconds in the span, or NaN where the JVM cannot tell. */
    public double cpuSeconds() {
        return startCpu < 0 || endCpu < 0 ? Double.NaN : (endCpu - startCpu) / 1e9;
    }

    private long processCpuNanos() {
        return os instanceof com.sun.management.OperatingSystemMXBean hotspot ? hotspot.getProcessCpuTime() : -1;
    }
}
