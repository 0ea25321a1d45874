package dev.dprof.cli;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One JVM of a test bed — a simulated machine. Its output goes to files in the run folder rather
 * than pipes, so a chatty process can never block on a full pipe and the files stay for a
 * post-mortem; the test bed polls them for the line that says the process is ready.
 */
final class TestbedProcess {
    /** Exit code of a JVM that ended through its shutdown hooks on SIGTERM (128 + 15). */
    private static final int SIGTERM_EXIT = 143;

    private final String name;
    private final Process process;
    private final Path stderr;

    private TestbedProcess(String name, Process process, Path stderr) {
        this.name = name;
        this.process = process;
        this.stderr = stderr;
    }

    /** Starts {@code command}; stdout and stderr go to {@code logs/NAME.out} and {@code .err}. */
    static TestbedProcess start(String name, List<String> command, Path logs) throws CliException {
        Path out = logs.resolve(name + ".out");
        Path err = logs.resolve(name + ".err");
        try {
            Files.createDirectories(logs);
            Files.writeString(logs.resolve(name + ".cmd"), String.join(" ", command) + "\n");
            Process p = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
            return new TestbedProcess(name, p, err);
        } catch (IOException e) {
            throw new CliException("cannot start " + name + ": " + e.getMessage());
        }
    }

    String name() {
        return name;
    }

    /**
     * Waits until a stderr line matches {@code pattern}; returns the match.
     *
     * @throws CliException if the process ends first or nothing matches within the time
     */
    Matcher awaitLine(Pattern pattern, long timeoutMillis) throws CliException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (true) {
            for (String line : lines()) {
                Matcher m = pattern.matcher(line);
                if (m.find()) {
                    return m;
                }
            }
            if (!process.isAlive()) {
                throw new CliException(name + " ended (exit " + process.exitValue() + ") before it was ready: "
                        + lastLine().orElse("no output"));
            }
            if (System.nanoTime() > deadline) {
                throw new CliException(name + " was not ready within " + timeoutMillis + " ms: "
                        + lastLine().orElse("no output"));
            }
            Thread.sleep(20);
        }
    }

    /** Sends SIGTERM; the JVM runs its shutdown hooks (final epoch, {@code end}). */
    void terminate() {
        process.destroy();
    }

    /**
     * Waits for the process to end after {@link #terminate()}; kills it if it takes too long.
     *
     * @return a one-line problem, or empty if it ended cleanly
     */
    Optional<String> awaitEnd(long timeoutMillis) throws InterruptedException {
        if (!process.waitFor(timeoutMillis, TimeUnit.MILLISECONDS)) {
            process.destroyForcibly().waitFor();
            return Optional.of(name + " did not end within " + timeoutMillis + " ms of SIGTERM; killed");
        }
        int exit = process.exitValue();
        if (exit != 0 && exit != SIGTERM_EXIT) {
            return Optional.of(name + " exited with " + exit + ": " + lastLine().orElse("no output"));
        }
        return Optional.empty();
    }

    /** Kills the process if it still runs (the test bed failed part-way). */
    void kill() {
        if (process.isAlive()) {
            process.destroyForcibly();
        }
    }

    private List<String> lines() {
        try {
            return Files.exists(stderr) ? Files.readAllLines(stderr, StandardCharsets.UTF_8) : List.of();
        } catch (IOException e) {
            return List.of();
        }
    }

    private Optional<String> lastLine() {
        List<String> lines = lines();
        return lines.isEmpty() ? Optional.empty() : Optional.of(lines.get(lines.size() - 1));
    }
}
