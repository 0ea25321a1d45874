package dev.dprof.bench;

import dev.dprof.consolidator.read.ReadException;
import dev.dprof.consolidator.read.RunDirs;
import dev.dprof.settings.DprofSettings;
import java.io.IOException;
import java.io.Reader;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.stream.Stream;

/**
 * The disk cost of events: one JVM with the agent runs {@link EventLoop}, then its queue is read
 * back (every event decoded and counted) and the space its files occupy is measured the way
 * {@code du} does — allocated blocks, not file lengths (Chronicle's files are sparse).
 */
final class DiskRun {
    /** What one run wrote and read back. */
    record Result(long calls, long events, long batches, long regionEvents, long lostEvents, boolean lossless,
                  long allocatedBytes, long apparentBytes, String queue, List<String> problems,
                  long loopNs, long mainAllocBytes, long drainerAllocBytes) {
        double bytesPerEvent() {
            return events == 0 ? Double.NaN : (double) allocatedBytes / events;
        }

        boolean complete() {
            return lossless && regionEvents == 2 * calls;
        }
    }

    private DiskRun() {
    }

    /**
     * Runs the loop with {@code calls} calls under the agent ({@code agentJar}, {@code yaml}),
     * writing under {@code out}; the child's output goes to ours.
     */
    static Result run(Path agentJar, Path yaml, Path out, long calls) throws IOException, InterruptedException, ReadException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(DprofSettings.chronicleJvmFlags());
        cmd.add(ProbeConfig.javaagent(agentJar, yaml, out));
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(EventLoop.class.getName());
        cmd.add(Long.toString(calls));
        Path stats = out.resolve("loop-stats.properties");
        cmd.add(stats.toString());
        Process p = new ProcessBuilder(cmd).inheritIO().start();
        int rc = p.waitFor();
        if (rc != 0) {
            throw new IOException("the event loop JVM exited with " + rc + ": " + String.join(" ", cmd));
        }
        Properties loop = new Properties();
        try (Reader r = Files.newBufferedReader(stats)) {
            loop.load(r);
        }
        Files.delete(stats);
        List<Path> queues = RunDirs.expand(List.of(out));
        if (queues.size() != 1) {
            throw new IOException("expected one process queue under " + out + ", found " + queues.size());
        }
        Path queue = queues.get(0);
        QueueTally t = QueueTally.read(queue, true);
        syncAll(queue);
        return new Result(calls, t.events, t.batches, t.regionEnters + t.regionExits, t.lostEvents, t.lossless(),
                allocatedBytes(queue), apparentBytes(queue), t.toString(), t.problems,
                Long.parseLong(loop.getProperty("loopNs")), Long.parseLong(loop.getProperty("mainAllocBytes")),
                Long.parseLong(loop.getProperty("drainerAllocBytes")));
    }

    /** fsync every file, so that the allocation du sees is final. */
    private static void syncAll(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
                try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ)) {
                    ch.force(true);
                }
            }
        }
    }

    /** Bytes allocated on disk for everything under {@code dir}: {@code du -s -B1}. */
    static long allocatedBytes(Path dir) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("du", "-s", "-B1", dir.toString()).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        if (p.waitFor() != 0) {
            throw new IOException("du failed: " + output);
        }
        return Long.parseLong(output.split("\\s+")[0]);
    }

    /** The sum of the files' lengths (what {@code ls -l} shows), for context. */
    static long apparentBytes(Path dir) throws IOException {
        long total = 0;
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
                total += Files.size(f);
            }
        }
        return total;
    }
}
