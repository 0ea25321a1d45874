package dev.dprof.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * The programs whose launch-to-exit time {@code ./dprof bench startup} measures ({@link StartupCommand}):
 * {@code hello}, a {@code main} that prints and returns, and {@code pool}, one that hands a few tasks to
 * a thread pool and a few elements through a queue, so that the handoffs the agent weaves by default
 * are used, not only woven. Each calls {@link #work} once, the region of the benchmark's YAML.
 *
 * <p>The first thing {@code main} does is read {@link System#nanoTime()} and print it as
 * {@value #MAIN_LINE}{@code NANOS}; the launcher read the same clock just before it started the
 * process, so the difference is the time from launch to the first line of {@code main}. On Linux
 * {@code nanoTime} is {@code CLOCK_MONOTONIC}, one clock for every process of the machine; the
 * launcher checks that the value lies between its own reads before the start and after the exit.
 * With {@code --hwm} it prints the process's peak resident set ({@code VmHWM} of
 * {@code /proc/self/status}) as {@value #HWM_LINE}{@code KIB} before returning: the launcher asks for
 * it only where {@code /usr/bin/time} cannot give the peak of the whole process life.
 */
public final class StartupProgram {
    static final String MAIN_LINE = "dprof-startup main ";
    static final String HWM_LINE = "dprof-startup hwm-kib ";
    private static final int POOL_TASKS = 8;
    private static final int QUEUE_ELEMENTS = 64;

    private StartupProgram() {
    }

    public static void main(String[] args) throws Exception {
        long mainNanos = System.nanoTime();
        System.out.println(MAIN_LINE + mainNanos);
        String program = args.length > 0 ? args[0] : "hello";
        long result = switch (program) {
            case "hello" -> work(1);
            case "pool" -> pool();
            default -> throw new IllegalArgumentException("unknown program '" + program + "' (hello or pool)");
        };
        if (result == 42) {
            System.out.println("(never printed: keeps the result alive)");
        }
        if (args.length > 1 && args[1].equals("--hwm")) {
            System.out.println(HWM_LINE + vmHwmKib(Files.readString(Path.of("/proc/self/status"))));
        }
    }

    /** The benchmark's one region. */
    static long work(long seed) {
        long x = seed;
        for (int i = 0; i < 1000; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
        }
        return x;
    }

    /** Tasks through a fixed pool, their futures waited for, elements from a producer thread through a queue. */
    private static long pool() throws Exception {
        ExecutorService executor = Executors.newFixedThreadPool(2);
        try {
            Future<?>[] futures = new Future<?>[POOL_TASKS];
            for (int t = 0; t < POOL_TASKS; t++) {
                long seed = t;
                futures[t] = executor.submit(() -> work(seed));
            }
            long sum = 0;
            for (Future<?> f : futures) {
                sum += (Long) f.get();
            }
            LinkedBlockingQueue<Long> queue = new LinkedBlockingQueue<>(16);
            Thread producer = new Thread(() -> {
                try {
                    for (long e = 0; e < QUEUE_ELEMENTS; e++) {
                        queue.put(e + 1000); // distinct boxes: no element is in flight twice
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "producer");
            producer.start();
            for (int e = 0; e < QUEUE_ELEMENTS; e++) {
                sum += queue.take();
            }
            producer.join();
            return sum;
        } finally {
            executor.shutdown();
        }
    }

    /**
     * The {@code VmHWM} line of a {@code /proc/PID/status} text in KiB ({@code "VmHWM:   123456 kB"});
     * throws naming the problem when there is none or it is not in kB.
     */
    static long vmHwmKib(String status) throws IOException {
        for (String line : status.split("\n")) {
            if (line.startsWith("VmHWM:")) {
                String[] parts = line.substring("VmHWM:".length()).trim().split("\\s+");
                if (parts.length != 2 || !parts[1].equals("kB")) {
                    throw new IOException("/proc/self/status: unexpected VmHWM line '" + line + "'");
                }
                try {
                    return Long.parseLong(parts[0]);
                } catch (NumberFormatException e) {
                    throw new IOException("/proc/self/status: unexpected VmHWM line '" + line + "'");
                }
            }
        }
        throw new IOException("/proc/self/status: no VmHWM line (not Linux?)");
    }
}
