package dev.dprof.bench;

import dev.dprof.agent.bootstrap.NativeLibrary;
import dev.dprof.agent.bootstrap.RingConfig;
import dev.dprof.agent.bootstrap.Rings;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import jdk.jfr.FlightRecorder;
import jdk.jfr.Recording;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The probe-cost benchmarks, run together by {@code ./dprof bench probe} in forked JVMs that all
 * carry the real agent ({@link ProbeCommand} appends the {@code -javaagent:}). Each operation is
 * one out-of-line call of a {@link ProbeTargets} method; each benchmark takes one state whose
 * trial setup checks that the fork measures what it claims to (woven or not, native clock
 * loaded, JFR recording on) and fails the run otherwise.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Thread)
public class ProbeBench {

    @Benchmark
    public void plain(Agent agent) {
        ProbeTargets.plain();
    }

    @Benchmark
    public void instrumented(Agent agent) {
        ProbeTargets.instrumented();
    }

    @Benchmark
    public void limit(Clock clock) {
        ProbeTargets.limit();
    }

    @Benchmark
    public void jfr(Jfr jfr) {
        ProbeTargets.jfr();
    }

    @Benchmark
    public void jni(Clock clock) {
        ProbeTargets.jni();
    }

    @Benchmark
    public void nanoTime(Clock clock) {
        ProbeTargets.nanoTime();
    }

    /** Checks that the agent is attached with native rings, wove instrumented() and left plain() alone. */
    @State(Scope.Benchmark)
    public static class Agent {
        @Setup(Level.Trial)
        public void check() throws InterruptedException {
            checkWoven();
        }
    }

    /** Checks that the JNI clock is loaded (by the agent in the forks). */
    @State(Scope.Benchmark)
    public static class Clock {
        @Setup(Level.Trial)
        public void check() {
            checkNativeClock();
        }
    }

    /** A JFR recording with the event on: threshold 0, no stack traces, to disk (bounded). */
    @State(Scope.Benchmark)
    public static class Jfr {
        private Recording recording;

        @Setup(Level.Trial)
        public void start() {
            recording = startJfr();
        }

        @TearDown(Level.Trial)
        public void stop() {
            recording.stop();
            recording.close();
        }
    }

    static void checkNativeClock() {
        if (!NativeLibrary.load()) {
            throw new IllegalStateException("the JNI clock is not loaded: " + NativeLibrary.message());
        }
    }

    static void checkWoven() throws InterruptedException {
        if (!Rings.NATIVE) {
            throw new IllegalStateException("the probes do not use the native rings (agent attached? "
                    + RingConfig.message() + ")");
        }
        if (records(ProbeTargets::plain)) {
            throw new IllegalStateException("ProbeTargets.plain() records events: it must not be woven");
        }
        if (!records(ProbeTargets::instrumented)) {
            throw new IllegalStateException("ProbeTargets.instrumented() records nothing: the agent did not weave it");
        }
    }

    /** Whether calling {@code r} on a fresh thread made that thread record an event. */
    static boolean records(Runnable r) throws InterruptedException {
        Thread t = new Thread(r, "dprof-bench-check");
        t.start();
        t.join();
        return Rings.threadName(t.getId()) != null;
    }

    static Recording startJfr() {
        if (!FlightRecorder.isAvailable()) {
            throw new IllegalStateException("JFR is not available in this JVM");
        }
        Recording recording = new Recording();
        recording.setName("dprof-bench");
        recording.enable(BenchEvent.class).withThreshold(Duration.ZERO).withoutStackTrace();
        recording.setToDisk(true);
        recording.setMaxSize(256L << 20);
        recording.start();
        if (!new BenchEvent().isEnabled()) {
            recording.close();
            throw new IllegalStateException("the JFR bench event is not enabled by the recording");
        }
        return recording;
    }
}
