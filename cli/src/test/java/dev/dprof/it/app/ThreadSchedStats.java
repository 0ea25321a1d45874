package dev.dprof.it.app;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Linux's scheduler statistics of every thread of some processes, read from
 * {@code /proc/PID/task/TID/schedstat} (time on a CPU, time runnable in a run queue, timeslices),
 * {@code …/status} (voluntary and involuntary context switches) and {@code …/comm} (the thread's
 * name as the kernel keeps it: a Java thread's name cut to 15 bytes). Two readings, at a load's
 * start and end, say per group of threads how long they ran and how long they waited for a CPU
 * after becoming runnable: the waits that a what-if holds fixed (BENCHMARKS.md, "ZooKeeper").
 *
 * <p>The load client takes the readings ({@link ZooKeeperLoad}), right before its span's first
 * write and right after its last callback, and prints each thread as one {@link #line} that
 * {@link #parse} reads back in the test.
 *
 * <p>Implementation notes: {@code schedstat} exists where the kernel has {@code CONFIG_SCHEDSTATS}
 * or {@code CONFIG_SCHED_INFO} (every distribution kernel); a thread that ends between listing
 * and reading is left out of that reading. A timeslice starts with each wake-up and with each
 * return to a CPU after a preemption, so wait per timeslice is the mean time from runnable to
 * running.
 */
public final class ThreadSchedStats {
    /** The prefix of every line a reading prints. */
    public static final String PREFIX = "zk-threads: ";

    /** One thread at one reading. */
    public record Sample(long pid, long tid, String comm, long runNs, long waitNs, long slices, long voluntary,
            long involuntary) {
    }

    /** A group's sums between two readings; {@code threads} counts those present at the end. */
    public record Sums(int threads, long runNs, long waitNs, long slices, long voluntary, long involuntary) {
        /** No thread. */
        public static final Sums NONE = new Sums(0, 0, 0, 0, 0, 0);

        public Sums plus(Sums o) {
            return new Sums(threads + o.threads, runNs + o.runNs, waitNs + o.waitNs, slices + o.slices,
                    voluntary + o.voluntary, involuntary + o.involuntary);
        }

        /** Mean run-queue wait of a timeslice in ns, NaN without any. */
        public double waitPerSliceNs() {
            return slices == 0 ? Double.NaN : (double) waitNs / slices;
        }
    }

    /** The sums of each thread group and the count of threads gone between the readings. */
    public record Delta(Map<String, Sums> groups, int threadsGone) {
        /** Every group's sums together. */
        public Sums total() {
            return groups.values().stream().reduce(Sums.NONE, Sums::plus);
        }
    }

    /**
     * The threads on ZooKeeper 3.9's request path by the first 15 bytes of their names, to the
     * stage each runs; every other thread (the election's, the JVM's, the agent's) is grouped by its
     * name without a trailing number.
     */
    private static final Map<String, String> ZOOKEEPER = zooKeeperGroups();

    private ThreadSchedStats() {
    }

    private static Map<String, String> zooKeeperGroups() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("SyncThread", "SyncThread (transaction log, fsync)");
        m.put("CommitProcWork", "CommitProcWorkThread");
        m.put("CommitProcesso", "CommitProcessor");
        m.put("ProcessThread(", "ProcessThread (PrepRequestProcessor)");
        m.put("FollowerReques", "FollowerRequestProcessor");
        m.put("NIOServerCxnFa", "NIO selector/acceptor");
        m.put("NIOWorkerThrea", "NIO worker");
        m.put("LearnerHandler", "LearnerHandler (leader's side)");
        m.put("LearnerSender", "LearnerSender (follower's side)");
        m.put("Sender-/", "LearnerHandler's Sender (leader's side)");
        m.put("QuorumPeer[", "QuorumPeer (follower's or leader's main loop)");
        m.put("RequestThrottle", "RequestThrottler");
        return m;
    }

    /** The group of a thread's kernel name. */
    public static String group(String comm) {
        for (Map.Entry<String, String> e : ZOOKEEPER.entrySet()) {
            if (comm.startsWith(e.getKey())) {
                return e.getValue();
            }
        }
        String g = comm.replaceFirst("[-:#_ ]?\\d+$", "").strip();
        return g.isEmpty() ? comm : g;
    }

    /** Whether a group is one of ZooKeeper's request path (not the election's, the JVM's or the agent's). */
    public static boolean requestPath(String group) {
        return ZOOKEEPER.containsValue(group);
    }

    /** Every thread of process {@code pid} now. */
    public static List<Sample> read(long pid) {
        Path tasks = Path.of("/proc", Long.toString(pid), "task");
        List<Sample> samples = new ArrayList<>();
        try (Stream<Path> list = Files.list(tasks)) {
            for (Path task : list.toList()) {
                try {
                    String[] s = Files.readString(task.resolve("schedstat")).trim().split("\\s+");
                    String comm = Files.readString(task.resolve("comm")).strip();
                    long voluntary = 0;
                    long involuntary = 0;
                    for (String line : Files.readAllLines(task.resolve("status"))) {
                        if (line.startsWith("voluntary_ctxt_switches:")) {
                            voluntary = Long.parseLong(line.substring(line.indexOf(':') + 1).strip());
                        } else if (line.startsWith("nonvoluntary_ctxt_switches:")) {
                            involuntary = Long.parseLong(line.substring(line.indexOf(':') + 1).strip());
                        }
                    }
                    samples.add(new Sample(pid, Long.parseLong(task.getFileName().toString()), comm, Long.parseLong(s[0]),
                            Long.parseLong(s[1]), Long.parseLong(s[2]), voluntary, involuntary));
                } catch (NoSuchFileException e) {
                    // the thread ended after the listing
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(tasks + ": cannot read the threads' scheduler statistics: " + e.getMessage(), e);
        }
        return samples;
    }

    /** {@code zk-threads: WHEN PID TID RUN_NS WAIT_NS SLICES VOLUNTARY INVOLUNTARY COMM}; the name last, it may hold spaces. */
    public static String line(String when, Sample s) {
        return String.format(Locale.ROOT, "%s%s %d %d %d %d %d %d %d %s", PREFIX, when, s.pid, s.tid, s.runNs, s.waitNs,
                s.slices, s.voluntary, s.involuntary, s.comm);
    }

    /** The samples of the lines of reading {@code when} among a process's output lines. */
    public static List<Sample> parse(String when, List<String> lines) {
        String prefix = PREFIX + when + " ";
        List<Sample> samples = new ArrayList<>();
        for (String line : lines) {
            if (line.startsWith(prefix)) {
                String[] f = line.substring(prefix.length()).split(" ", 8);
                if (f.length != 8) {
                    throw new IllegalArgumentException("not a thread's scheduler statistics: " + line);
                }
                samples.add(new Sample(Long.parseLong(f[0]), Long.parseLong(f[1]), f[7], Long.parseLong(f[2]),
                        Long.parseLong(f[3]), Long.parseLong(f[4]), Long.parseLong(f[5]), Long.parseLong(f[6])));
            }
        }
        return samples;
    }

    /**
     * Per group, what the threads did between two readings: a thread present only at the end was
     * started between them and counts whole; one present only at the start ended between them, and
     * what it did since the start is lost (counted in {@link Delta#threadsGone}).
     */
    public static Delta delta(List<Sample> start, List<Sample> end) {
        Map<List<Long>, Sample> before = new LinkedHashMap<>();
        start.forEach(s -> before.put(List.of(s.pid, s.tid), s));
        Map<String, Sums> groups = new TreeMap<>();
        for (Sample e : end) {
            Sample b = before.remove(List.of(e.pid, e.tid));
            Sums d = b == null ? new Sums(1, e.runNs, e.waitNs, e.slices, e.voluntary, e.involuntary)
                    : new Sums(1, e.runNs - b.runNs, e.waitNs - b.waitNs, e.slices - b.slices, e.voluntary - b.voluntary,
                            e.involuntary - b.involuntary);
            groups.merge(group(e.comm), d, Sums::plus);
        }
        return new Delta(groups, before.size());
    }
}
