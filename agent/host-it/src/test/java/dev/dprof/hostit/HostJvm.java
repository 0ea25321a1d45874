package dev.dprof.hostit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import dev.dprof.settings.DprofSettings;
import dev.dprof.testsupport.TestSettings;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A host application run in a JVM of its own, with or without the agent, on a JDK that
 * {@link dev.dprof.testsupport.Jdks#require} found.
 */
final class HostJvm {
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
        return "-javaagent:" + DprofSettings.agentJar().orElseThrow(() -> TestSettings.notSetByTheBuild(DprofSettings.AGENT_JAR_PROPERTY)) + "=config=" + config + ",out=" + out;
    }
}
