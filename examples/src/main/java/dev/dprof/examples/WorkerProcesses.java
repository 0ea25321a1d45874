package dev.dprof.examples;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.OptionalDouble;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;

/** Running the worker processes of a {@link Cluster}: start, collect output, wait, stop. */
final class WorkerProcesses {
    private WorkerProcesses() {
    }

    /**
     * Starts one process per command and waits for all of them. When one fails the others are
     * stopped at once (in a full mesh they cannot finish without it); when the time is up all are.
     */
    static Cluster.Result run(List<List<String>> commands, Path directory, PrintStream echo, Duration timeout)
            throws IOException, InterruptedException {
        int workers = commands.size();
        List<Process> processes = new ArrayList<>();
        List<List<String>> outputs = new ArrayList<>();
        List<Thread> readers = new ArrayList<>();
        BlockingQueue<Integer> ended = new LinkedBlockingQueue<>();
        try {
            for (int rank = 0; rank < workers; rank++) {
                ProcessBuilder pb = new ProcessBuilder(commands.get(rank)).redirectErrorStream(true);
                if (directory != null) {
                    pb.directory(directory.toFile());
                }
                Process process = pb.start();
                processes.add(process);
                List<String> lines = Collections.synchronizedList(new ArrayList<>());
                outputs.add(lines);
                readers.add(reader(rank, process, lines, echo));
                int r = rank;
                process.onExit().thenRun(() -> ended.add(r));
            }
            boolean[] timedOut = awaitAll(processes, ended, timeout);
            List<Cluster.Worker> result = new ArrayList<>();
            for (int rank = 0; rank < workers; rank++) {
                Process process = processes.get(rank);
                process.waitFor();
                readers.get(rank).join();
                List<String> lines = List.copyOf(outputs.get(rank));
                result.add(new Cluster.Worker(rank, timedOut[rank] ? Cluster.TIMED_OUT : process.exitValue(),
                        lines, span(lines)));
            }
            return new Cluster.Result(result);
        } finally {
            // only after an exception above: never leave workers behind
            for (Process p : processes) {
                if (p.isAlive()) {
                    p.destroyForcibly();
                }
            }
        }
    }

    /** Blocks until every process has ended; returns which ones were killed for running out of time. */
    private static boolean[] awaitAll(List<Process> processes, BlockingQueue<Integer> ended, Duration timeout)
            throws InterruptedException {
        boolean[] timedOut = new boolean[processes.size()];
        long deadline = System.nanoTime() + timeout.toNanos();
        for (int left = processes.size(); left > 0; left--) {
            Integer rank = ended.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (rank == null) {
                for (int r = 0; r < processes.size(); r++) {
                    if (processes.get(r).isAlive()) {
                        timedOut[r] = true;
                        processes.get(r).destroyForcibly();
                    }
                }
                break;
            }
            if (processes.get(rank).exitValue() != 0) {
                processes.forEach(Process::destroy);
            }
        }
        return timedOut;
    }

    private static Thread reader(int rank, Process process, List<String> lines, PrintStream echo) {
        Thread thread = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    lines.add(line);
                    if (echo != null) {
                        echo.println("[rank " + rank + "] " + line);
                    }
                }
            } catch (IOException e) {
                lines.add("cluster: reading the output of rank " + rank + " failed: " + e.getMessage());
            }
        }, "cluster-output-" + rank);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    /** The span of the last span line, if any. */
    static OptionalDouble span(List<String> lines) {
        for (int i = lines.size() - 1; i >= 0; i--) {
            Matcher m = Cluster.SPAN.matcher(lines.get(i));
            if (m.matches()) {
                return OptionalDouble.of(Double.parseDouble(m.group(2)));
            }
        }
        return OptionalDouble.empty();
    }
}
