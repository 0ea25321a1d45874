package dev.dprof.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
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
 * The cost of a virtual thread's unmount and mount, run by {@code ./dprof bench vthreads} on a JDK
 * with virtual threads, with JMH's benchmark threads virtual ({@code -Djmh.executor=VIRTUAL}): one
 * operation is one {@code Thread.yield()}, which unmounts the thread and mounts it again. In the
 * forks with the agent each operation also records a VT_UNMOUNT and a VT_MOUNT on the carrier's ring
 * ({@code VirtualThreads}); the forks without are the baseline.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Thread)
public class VirtualThreadBench {

    @Benchmark
    public void yield(Virtual onVirtualThread, CarrierCpu cpu) {
        Thread.yield();
        cpu.yields++;
    }

    /**
     * The carrier's CPU time over each iteration, beside the wall time JMH measures: on a shared
     * host, wall time per yield includes whatever else ran on the CPU (it varied 2× between runs at
     * a load average of 30), the CPU time the carrier spent per yield does not. Read from
     * {@code /proc/thread-self/schedstat}, which on a virtual thread is its carrier's (one carrier:
     * {@code VirtualThreadCommand.ONE_CARRIER}); zero where there is no such file. JMH sums both
     * counters over the iterations, so their ratio is the carrier's CPU time per yield.
     */
    @AuxCounters(AuxCounters.Type.EVENTS)
    @State(Scope.Thread)
    public static class CarrierCpu {
        public long carrierCpuNanos;
        public long yields;
        private long start;

        @Setup(Level.Iteration)
        public void begin() {
            carrierCpuNanos = 0;
            yields = 0;
            start = carrierNanos();
        }

        @TearDown(Level.Iteration)
        public void end() {
            long now = carrierNanos();
            carrierCpuNanos = start < 0 || now < 0 ? 0 : now - start;
        }

        private static long carrierNanos() {
            try {
                String stat = Files.readString(Path.of("/proc/thread-self/schedstat"));
                return Long.parseLong(stat.substring(0, stat.indexOf(' ')));
            } catch (IOException | RuntimeException e) {
                return -1;
            }
        }
    }

    /** Fails the trial unless the benchmark thread is virtual: otherwise {@code yield} would measure the OS. */
    @State(Scope.Thread)
    public static class Virtual {
        @Setup(Level.Trial)
        public void check() throws ReflectiveOperationException {
            if (!(Boolean) Thread.class.getMethod("isVirtual").invoke(Thread.currentThread())) {
                throw new IllegalStateException("the benchmark thread is not virtual: run with -Djmh.executor=VIRTUAL");
            }
        }
    }
}
