package dev.dprof.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The program of the disk-usage run: calls {@link ProbeTargets#instrumented()} N times on the
 * main thread (2 N events) and ends normally, so the agent's shutdown hook drains the rest and
 * writes the end record. Started by {@link DiskRun} in its own JVM with the agent attached.
 *
 * <p>It also writes what the heap paid during the loop, per thread, into {@code statsFile}: the
 * main thread (the probes themselves) and the agent's drainer thread (the copy to disk), which
 * JMH's {@code gc.alloc.rate.norm} lumps together.
 */
public final class EventLoop {
    static final String DRAINER_THREAD = "dprof-drainer";

    private EventLoop() {
    }

    public static void main(String[] args) throws IOException, InterruptedException {
        long calls = Long.parseLong(args[0]);
        Path statsFile = args.length > 1 ? Path.of(args[1]) : null;
        // Load (and weave) the class and take the thread's first-event slow path outside the count.
        ProbeTargets.plain();
        ProbeTargets.instrumented();
        calls--;
        long drainer = threadId(DRAINER_THREAD);
        long mainBefore = allocated(Thread.currentThread().getId());
        long drainerBefore = allocated(drainer);
        long t0 = System.nanoTime();
        for (long i = 0; i < calls; i++) {
            ProbeTargets.instrumented();
        }
        long t1 = System.nanoTime();
        long mainAfter = allocated(Thread.currentThread().getId());
        // Let the drainer catch up (it drains every interval) before reading its allocation.
        Thread.sleep(500);
        long drainerAfter = allocated(drainer);
        System.out.printf("dprof bench: %d calls in %.1f ms (%.1f ns per call, JIT warm-up included)%n",
                calls + 1, (t1 - t0) / 1e6, (double) (t1 - t0) / calls);
        if (statsFile != null) {
            Files.write(statsFile, List.of(
                    "loopNs=" + (t1 - t0),
                    "mainAllocBytes=" + (mainAfter - mainBefore),
                    "drainerAllocBytes=" + (drainer < 0 ? -1 : drainerAfter - drainerBefore)));
        }
    }

    private static long threadId(String name) {
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().equals(name)) {
                return t.getId();
            }
        }
        return -1;
    }

    private static long allocated(long threadId) {
        if (threadId < 0) {
            return 0;
        }
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getThreadAllocatedBytes(threadId);
    }
}
