package dev.dprof.bench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * The JVM forked by {@code ./dprof bench handoff --cpu} ({@link HandoffCpuCommand}): one thread hands
 * elements to itself through a queue, {@code offer} then {@code poll}, and prints the CPU time that
 * thread and the agent's drainer spent over the measured handoffs, from their
 * {@code /proc/self/task/TID/schedstat}. One thread, not a producer and a consumer: with two
 * spinning threads on a 2-CPU machine the figure would be the scheduler's; CPU time per thread
 * does not depend on what else the host runs.
 *
 * <p>Arguments: {@code array|linked handoffs warmupHandoffs}. Output, one line:
 * {@link HandoffCpu#LINE_PREFIX} followed by {@code handoffs appNs drainerNs drainerMinorFaults} (the
 * drainer's figures -1 without a drainer thread, i.e. without the agent). The drainer's minor page
 * faults are those of the queue file's pages it touches first, in its CPU time.
 */
public final class HandoffCpuProgram {
    /** The agent's drainer thread's name, as {@code /proc/…/comm} shows it. */
    static final String DRAINER = "dprof-drainer";
    /**
     * How long to wait for the drainer to empty the ring, before and after the measured handoffs:
     * longer than its pass period over ring files ({@code Drainer.DURABLE_PASS_NANOS}, 1 s).
     */
    static final long SETTLE_MS = 1_300;
    private static final int ELEMENTS = 8192;
    /** Where the loops' result goes, so the JIT keeps them. */
    static volatile long consumed;

    private HandoffCpuProgram() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: HandoffCpuProgram array|linked HANDOFFS WARMUP_HANDOFFS");
            System.exit(2);
        }
        BlockingQueue<Object> queue = switch (args[0]) {
            case "array" -> new ArrayBlockingQueue<>(1024);
            case "linked" -> new LinkedBlockingQueue<>(1024);
            default -> throw new IllegalArgumentException("queue must be array or linked: " + args[0]);
        };
        long handoffs = Long.parseLong(args[1]);
        long warmup = Long.parseLong(args[2]);
        Object[] elements = new Object[ELEMENTS];
        for (int i = 0; i < ELEMENTS; i++) {
            elements[i] = new Object();
        }
        long sink = loop(queue, elements, warmup);
        Thread.sleep(SETTLE_MS);
        Path drainer = drainerTask();
        Path self = Path.of("/proc/thread-self/schedstat");
        long drainer0 = drainer == null ? -1 : HandoffCpu.schedstatNanos(Files.readString(drainer.resolve("schedstat")));
        long faults0 = drainer == null ? -1 : HandoffCpu.minorFaults(Files.readString(drainer.resolve("stat")));
        long app0 = HandoffCpu.schedstatNanos(Files.readString(self));
        sink += loop(queue, elements, handoffs);
        long app1 = HandoffCpu.schedstatNanos(Files.readString(self));
        Thread.sleep(SETTLE_MS);
        long drainer1 = drainer == null ? -1 : HandoffCpu.schedstatNanos(Files.readString(drainer.resolve("schedstat")));
        long faults1 = drainer == null ? -1 : HandoffCpu.minorFaults(Files.readString(drainer.resolve("stat")));
        System.out.println(HandoffCpu.LINE_PREFIX + handoffs + " " + (app1 - app0) + " "
                + (drainer == null ? -1 : drainer1 - drainer0) + " " + (drainer == null ? -1 : faults1 - faults0));
        consumed = sink;
    }

    /** {@code n} handoffs through {@code queue}; returns a value the JIT cannot drop. */
    private static long loop(BlockingQueue<Object> queue, Object[] elements, long n) {
        long sum = 0;
        for (long i = 0; i < n; i++) {
            queue.offer(elements[(int) (i & (ELEMENTS - 1))]);
            sum += queue.poll().hashCode() & 1;
        }
        return sum;
    }

    /** The {@code /proc} directory of the thread named {@link #DRAINER}, or null if there is none. */
    private static Path drainerTask() throws IOException {
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                try {
                    if (Files.readString(task.resolve("comm")).strip().equals(DRAINER)) {
                        return task;
                    }
                } catch (IOException e) {
                    // the thread ended meanwhile
                }
            }
        }
        return null;
    }
}
