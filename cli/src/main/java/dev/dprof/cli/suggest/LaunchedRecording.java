package dev.dprof.cli.suggest;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

/**
 * Runs a command with every JVM it starts recording ({@code dprof suggest -- java … Main}).
 *
 * <p>The recorder's options go in {@code JAVA_TOOL_OPTIONS} (appended to the one the user has), which every
 * JVM of the JDK reads at start, so a launcher that starts JVMs of its own (a script, {@code Cluster}, a
 * build tool) has each of them record too, one file per JVM. The price is the JVM's one line "Picked up
 * JAVA_TOOL_OPTIONS" on each JVM's stderr. A command that starts with an option ({@code -jar app.jar},
 * {@code -cp …}) is run by the {@code java} of this JDK.
 *
 * <p>With a time limit the command is recorded for that long: then every process of it is asked to end
 * (SIGTERM, on which a JVM runs its shutdown hooks and the recorder writes its file), and killed if it has not
 * ended {@value #GRACE_SECONDS} s later. The limit counts from the moment the first of its JVMs has started
 * recording (its first chunk in the recorder's repository), not from the launch: on a loaded host a JVM can
 * take seconds to get there, and a JVM ended before its recorder has started leaves no recording at all. A
 * command in which no JVM starts recording within {@value #START_ALLOWANCE_SECONDS} s has its limit counted
 * from then.
 */
public final class LaunchedRecording {
    static final String TOOL_OPTIONS = "JAVA_TOOL_OPTIONS";
    static final int GRACE_SECONDS = 30;
    static final int START_ALLOWANCE_SECONDS = 120;
    private static final long POLL_MILLIS = 50;

    private LaunchedRecording() {
    }

    /** What a launch left: the recordings, one per JVM, and the command's exit code (empty if it was ended). */
    public record Result(List<Path> recordings, Optional<Integer> exitCode) {
    }

    /**
     * Runs {@code command} with its output on this process's, recording into {@code directory} (which must
     * exist and hold nothing else), and waits for it, at most {@code limit} if one is given.
     *
     * @throws IOException one line, when the command cannot be started or a path cannot take the recorder's options
     */
    public static Result run(List<String> command, Optional<Duration> limit, Path directory)
            throws IOException, InterruptedException {
        Path settings = directory.resolve("dprof-suggest.jfc");
        Path recordings = Files.createDirectories(directory.resolve("recordings"));
        Files.writeString(settings, FlightSettings.jfc());
        Path repository = Files.createDirectories(directory.resolve("repository"));
        List<String> options = FlightSettings.jvmOptions(settings.toAbsolutePath(), recordings.toAbsolutePath(),
                repository.toAbsolutePath());
        if (options.stream().anyMatch(o -> o.chars().anyMatch(Character::isWhitespace))) {
            throw new IOException(directory + ": the recorder's directory has a space in its path, which "
                    + TOOL_OPTIONS + " cannot carry; set java.io.tmpdir to a path without one");
        }
        List<String> argv = new ArrayList<>(command);
        if (argv.get(0).startsWith("-")) {
            argv.add(0, Path.of(System.getProperty("java.home"), "bin", "java").toString());
        }
        ProcessBuilder builder = new ProcessBuilder(argv).inheritIO();
        Map<String, String> env = builder.environment();
        String user = env.get(TOOL_OPTIONS);
        env.put(TOOL_OPTIONS, (user == null || user.isBlank() ? "" : user + " ") + String.join(" ", options));
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new IOException("cannot run " + argv.get(0) + ": " + e.getMessage(), e);
        }
        Optional<Integer> exit = Optional.empty();
        if (limit.isEmpty() || (awaitRecordingStart(process, repository)
                && process.waitFor(limit.get().toMillis(), TimeUnit.MILLISECONDS))) {
            exit = Optional.of(process.waitFor());
        } else {
            end(process);
        }
        try (Stream<Path> files = Files.list(recordings)) {
            return new Result(files.filter(f -> f.toString().endsWith(".jfr")).sorted().toList(), exit);
        }
    }

    /**
     * Waits until a JVM of the command has started recording (a chunk file in {@code repository}), for at most
     * {@value #START_ALLOWANCE_SECONDS} s; false if the command ended first.
     */
    private static boolean awaitRecordingStart(Process process, Path repository)
            throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_ALLOWANCE_SECONDS);
        while (System.nanoTime() < deadline) {
            if (hasChunk(repository)) {
                return true;
            }
            if (process.waitFor(POLL_MILLIS, TimeUnit.MILLISECONDS)) {
                return false;
            }
        }
        return true;
    }

    private static boolean hasChunk(Path repository) throws IOException {
        try (Stream<Path> files = Files.walk(repository)) {
            return files.anyMatch(f -> f.toString().endsWith(".jfr"));
        } catch (UncheckedIOException e) {
            return false; // a JVM's repository folder appeared or went while being walked: look again
        }
    }

    /** Asks the command and every process it started to end, children first; kills what is left after the grace. */
    private static void end(Process process) throws InterruptedException {
        List<ProcessHandle> all = new ArrayList<>(process.descendants().toList());
        all.add(process.toHandle());
        all.forEach(ProcessHandle::destroy);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(GRACE_SECONDS);
        for (ProcessHandle p : all) {
            long left = deadline - System.nanoTime();
            try {
                p.onExit().get(Math.max(0, left), TimeUnit.NANOSECONDS);
            } catch (ExecutionException | TimeoutException e) {
                p.destroyForcibly();
            }
        }
    }
}
