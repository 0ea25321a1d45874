package dev.dprof.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The switch of one experiment on the ZooKeeper validation (BENCHMARKS.md, "ZooKeeper"): one busy
 * loop per CPU at the lowest priority ({@code nice -n 19}), pinned with {@code taskset}, so that no
 * vCPU halts while the ensemble waits on a disk sync; and the readings of the machine's load that
 * every figure of that benchmark states.
 *
 * <p>Why: a slow run's code and handoffs run slower than a fast run's, beyond its fsyncs, which
 * no replay of the slow run can see. On a virtual machine whose guest halts an idle vCPU at once
 * (here KVM with the {@code haltpoll} idle driver and {@code guest_halt_poll_ns=0}), a thread woken
 * on a halted vCPU waits for the host to run it again, and an fsync with one write in flight idles
 * both vCPUs: runs with and without these loops, at low load, say how much of the excess that is.
 * A loop at nice 19 yields to any runnable thread of the ensemble at once, so it only takes the
 * place of the idle loop, the way HPC measurements switch off deep C-states. Measured on this
 * project's 2-vCPU KVM guest, though, the loops slowed the fsync itself about tenfold and the slow
 * runs' code two to four times (BENCHMARKS.md, "ZooKeeper"), so there they are an experiment, not
 * the measurement condition.
 *
 * <p>Implementation notes: relies on Linux's {@code taskset} and {@code nice}, on
 * {@code /proc/loadavg} for the load, which the figures must state, and on {@code /proc/stat} for
 * how much of each run the CPUs spent idle. The loops are this test's own processes, ended by
 * their handles.
 */
final class ZooKeeperAwakeCpus implements AutoCloseable {
    private final List<Process> loops;

    private ZooKeeperAwakeCpus(List<Process> loops) {
        this.loops = loops;
    }

    /** One loop on each CPU numbered below this JVM's processor count (every CPU here); none if not {@code enabled}. */
    static ZooKeeperAwakeCpus start(boolean enabled) throws IOException {
        List<Process> loops = new ArrayList<>();
        if (enabled) {
            try {
                for (int cpu = 0; cpu < Runtime.getRuntime().availableProcessors(); cpu++) {
                    loops.add(new ProcessBuilder("taskset", "-c", Integer.toString(cpu), "nice", "-n", "19", "sh", "-c",
                            "while :; do :; done").redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                            .start());
                }
            } catch (IOException e) {
                new ZooKeeperAwakeCpus(loops).close();
                throw new IOException("cannot start the CPU-awake loops (taskset, nice): " + e.getMessage(), e);
            }
        }
        return new ZooKeeperAwakeCpus(loops);
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
     * of the CPUs' time between them that no task used, which says whether vCPUs could halt.
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

    /**
     * The idle share of the CPUs' time between two {@link #cpuTimes()} readings, or NaN without any;
     * the busy loops count as use, so with them it is about 0 by construction.
     */
    static double idleShare(long[] before, long[] after) {
        long total = after[1] - before[1];
        return total <= 0 ? Double.NaN : (double) (after[0] - before[0]) / total;
    }

    @Override
    public void close() {
        for (Process loop : loops) {
            loop.destroyForcibly();
        }
    }
}
