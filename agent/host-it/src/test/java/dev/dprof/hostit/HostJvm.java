package dev.dprof.hostit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.dprof.settings.TestSettings;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A host application run in a JVM of its own, with or without the agent, on a JDK found under
 * {@code /usr/lib/jvm} by its {@code release} file (or named by {@code -Ddprof.jdk<feature>=HOME}).
 * A JDK that is missing skips the test, and fails it when {@code CI=true}.
 */
final class HostJvm {
    private static final Pattern VERSION = Pattern.compile("JAVA_VERSION=\"(\\d+)");
    private static final long TIMEOUT_SEC = 120;

    private HostJvm() {
    }

    /** What a run printed. */
    record Output(int exitCode, List<String> stdout, List<String> stderr, String command) {
        /** Stderr without the agent's own lines (each starts with {@code dprof:}). */
        List<String> stderrWithoutAgent() {
            return stderr.stream().filter(l -> !l.startsWith("dprof:")).toList();
        }

        List<String> agentLines() {
            return stderr.stream().filter(l -> l.startsWith("dprof:")).toList();
        }

        @Override
        public String toString() {
            return command + "\nexit " + exitCode + "\n--- stdout\n" + String.join("\n", stdout)
                    + "\n--- stderr\n" + String.join("\n", stderr);
        }
    }

    /** The JDK of this feature release (the newest of them at or above it when {@code orLater}). */
    static Path jdk(int feature, boolean orLater) throws IOException {
        Optional<Path> named = TestSettings.jdkHome(feature);
        Optional<Path> found = named.isPresent() ? named : find(feature, orLater);
        if (found.isEmpty() && TestSettings.ci()) {
            fail("CI=true and no JDK " + feature + (orLater ? "+" : "") + " under /usr/lib/jvm (or -D"
                    + TestSettings.JDK_HOME_PROPERTY_PREFIX + feature + "=HOME)");
        }
        assumeTrue(found.isPresent(), "no JDK " + feature + " under /usr/lib/jvm: skipped");
        return found.get();
    }

    private static Optional<Path> find(int feature, boolean orLater) throws IOException {
        Path jvms = Path.of("/usr/lib/jvm");
        if (!Files.isDirectory(jvms)) {
            return Optional.empty();
        }
        try (Stream<Path> homes = Files.list(jvms)) {
            return homes.sorted().filter(h -> orLater ? feature(h) >= feature : feature(h) == feature).findFirst();
        }
    }

    private static int feature(Path home) {
        Path release = home.resolve("release");
        if (!Files.isRegularFile(release) || !Files.isExecutable(home.resolve("bin/java"))) {
            return 0;
        }
        try {
            Matcher m = VERSION.matcher(Files.readString(release));
            return m.find() ? Integer.parseInt(m.group(1)) : 0;
        } catch (IOException e) {
            return 0;
        }
    }


    /** Runs {@code java OPTIONS -cp <host class path> MAIN ARGS} with the JDK at {@code home}. */
    static Output run(Path home, List<String> options, Class<?> main, Path dir, String... args)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(home.resolve("bin/java").toString());
        command.addAll(options);
        command.addAll(List.of("-cp", TestSettings.hostClasspath(), main.getName()));
        command.addAll(List.of(args));
        Files.createDirectories(dir);
        Path out = dir.resolve("stdout.txt");
        Path err = dir.resolve("stderr.txt");
        Process process = new ProcessBuilder(command).directory(dir.toFile())
                .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!process.waitFor(TIMEOUT_SEC, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            fail(main.getSimpleName() + " did not end within " + TIMEOUT_SEC + " s: " + command);
        }
        Output output = new Output(process.exitValue(), Files.readAllLines(out, StandardCharsets.UTF_8),
                Files.readAllLines(err, StandardCharsets.UTF_8), String.join(" ", command));
        assertEquals(0, output.exitCode(), () -> "the application failed\n" + output);
        return output;
    }

    /** {@code -javaagent:dprof.jar=config=CONFIG,out=OUT}. */
    static String agent(Path config, Path out) {
        return "-javaagent:" + TestSettings.agentJar() + "=config=" + config + ",out=" + out;
    }
}
