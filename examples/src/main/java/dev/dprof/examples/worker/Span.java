package dev.dprof.examples.worker;

/**
 * A worker's span as {@link SpanClock} measured it: wall seconds, and the seconds of CPU and of JIT
 * compilation its process spent meanwhile (NaN where the JVM cannot tell).
 */
public record Span(double seconds, double cpuSeconds, double jitSeconds) {
}
