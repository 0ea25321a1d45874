package dev.dprof.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

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
    public void yield(Virtual onVirtualThread) {
        Thread.yield();
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
