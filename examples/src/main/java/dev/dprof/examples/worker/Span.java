package dev.dprof.examples.worker;

import java.util.List;

/**
 * A worker's span as {@link SpanClock} measured it: wall seconds, the seconds of CPU and of JIT
 * compilation its process spent meanwhile (NaN where the JVM cannot tell), and the wall seconds of
 * each lap (an iteration, where the program marks them; empty where it does not).
 */
public record Span(double seconds, double cpuSeconds, double jitSeconds, List<Double> lapSeconds) {
    public Span {
        lapSeconds = List.copyOf(lapSeconds);
    }
}
