package dev.dprof.it;

import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;

/**
 * The machine's side of the ZooKeeper validation (BENCHMARKS.md, "ZooKeeper"): whether its idle
 * CPUs halt or poll, the readings of its load that every figure of that benchmark states, and the
 * flush of the previous run's dirty pages before each run.
 *
 * <p>Why idle CPUs matter: a slow run's fsync idles the CPUs, and on a machine whose idle CPUs halt
 * (here a KVM guest with the {@code haltpoll} idle driver and {@code guest_halt_poll_ns=0}) every
 * thread woken after that waits for the host to run its vCPU again. Those wake-ups lie outside the
 * fsync region, so the what-if keeps them, while the fast run has far fewer of them. Holding
 * {@code /dev/cpu_dma_latency} at 0 (the kernel's PM QoS request, what latency-tuned systems do)
 * makes the idle governor choose polling, so the CPUs never halt: the condition in which the
 * what-if's premise, that nothing outside the region changes, holds for the machine too. Busy loops
 * at nice 19 were tried before for the same end and slowed the virtual disk about tenfold.
 *
 * <p>Why the flush: every run writes hundreds of MiB of ring files and queues; left dirty, they are
 * written back during the next runs and lengthen the slow runs' fsyncs more the later the run.
 *
 * <p>Implementation notes: relies on Linux's {@code /dev/cpu_dma_latency} (writable by root only:
 * asking for polling without it fails the test rather than measuring the wrong condition),
 * {@code /sys/devices/system/cpu/cpuidle} and {@code /sys/module/haltpoll} for the description,
 * {@code /proc/loadavg} and {@code /proc/stat} for the load, and {@code sync(1)}.
 */
final class ZooKeeperHost implements AutoCloseable {
    private static final Path LATENCY_REQUEST = Path.of("/dev/cpu_dma_latency");
    private final Optional<FileOutputStream> pollRequest;

    private ZooKeeperHost(Optional<FileOutputStream> pollRequest) {
        this.pollRequest = pollRequest;
    }

    /** Holds a PM QoS latency of 0 until {@link #close()} when {@code pollIdle}, so idle CPUs poll; else changes nothing. */
    static ZooKeeperHost start(boolean pollIdle) throws IOException {
        if (!pollIdle) {
            return new ZooKeeperHost(Optional.empty());
        }
        FileOutputStream request;
        try {
            request = new FileOutputStream(LATENCY_REQUEST.toFile());
            request.write(new byte[4]); // a 32-bit 0: no idle state with any exit latency
            request.flush();
        } catch (IOException e) {
            throw new IOException(LATENCY_REQUEST + ": cannot request polling idle CPUs (root only): " + e.getMessage(), e);
        }
        return new ZooKeeperHost(Optional.of(request));
    }

    /** The idle driver and governor, haltpoll's poll limit where it exists, and whether polling is requested. */
    String describe() {
        String cpuidle = "/sys/devices/system/cpu/cpuidle/";
        String driver = read(cpuidle + "current_driver");
        String governor = read(cpuidle + "current_governor_ro");
        if (governor.equals("?")) {
            governor = read(cpuidle + "current_governor");
        }
        String haltPoll = read("/sys/module/haltpoll/parameters/guest_halt_poll_ns");
        return String.format(Locale.ROOT, "idle driver %s, governor %s%s; idle CPUs %s", driver, governor,
                haltPoll.equals("?") ? "" : ", guest_halt_poll_ns=" + haltPoll,
                pollRequest.isPresent() ? "poll (PM QoS latency 0 held during the runs)" : "as the machine sets them");
    }

    boolean pollIdle() {
        return pollRequest.isPresent();
    }

    /** Writes every dirty page back ({@code sync}), so that no earlier run's files are written during the next. */
    static void flushDirtyPages() throws IOException, InterruptedException {
        Process sync = new ProcessBuilder("sync").redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        if (sync.waitFor() != 0) {
            throw new IOException("sync exited with " + sync.exitValue());
        }
    }

    /** The 1-minute load average, or NaN where {@code /proc/loadavg} does not exist. */
    static double loadAverage() {
        try {
            return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }

    /**
     * The machine's CPU time so far, from the first line of {@code /proc/stat}: {idle (with I/O
     * wait), total} in clock ticks, or {0, 0} where it does not exist. Two readings give the share
     * of the CPUs' time between them that no task used, which says whether CPUs could go idle.
     */
    static long[] cpuTimes() {
        try {
            String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            long total = 0;
            for (int i = 1; i < f.length && i <= 8; i++) { // user … steal; guest time is inside user
                total += Long.parseLong(f[i]);
            }
            return new long[] {Long.parseLong(f[4]) + Long.parseLong(f[5]), total};
        } catch (IOException | RuntimeException e) {
            return new long[] {0, 0};
        }
    }

    /** The idle share of the CPUs' time between two {@link #cpuTimes()} readings, or NaN without any. */
    static double idleShare(long[] before, long[] after) {
        long total = after[1] - before[1];
        return total <= 0 ? Double.NaN : (double) (after[0] - before[0]) / total;
    }

    private static String read(String file) {
        try {
            return Files.readString(Path.of(file)).trim();
        } catch (IOException | RuntimeException e) {
            return "?";
        }
    }

    @Override
    public void close() throws IOException {
        if (pollRequest.isPresent()) {
            pollRequest.get().close(); // the kernel drops the request with the file
        }
    }
}
