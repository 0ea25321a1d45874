package dev.dprof.cli;

import dev.dprof.settings.DprofSettings;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Starting the JVMs the tools drive: the examples with the agent, each its own process. */
final class Launch {
    private Launch() {
    }

    /** The repository root, passed by the {@code ./dprof} launcher. */
    static Path home() throws CliException {
        return DprofSettings.home().orElseThrow(() -> new CliException(
                DprofSettings.HOME_PROPERTY + " is not set: run through the ./dprof launcher"));
    }

    static Path examplesJar(Path home) throws CliException {
        Path jar = home.resolve("examples/target/dprof-examples.jar");
        if (!Files.isRegularFile(jar)) {
            throw new CliException(jar + " is missing: build with 'mvn -B -DskipTests package'");
        }
        return jar;
    }

    /** {@code java -javaagent:dprof.jar=config=…,out=…} with this JVM's java. */
    static List<String> javaWithAgent(Path config, Path out) throws CliException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-javaagent:" + AttachCommand.agentJar() + "=config=" + config.toAbsolutePath()
                + ",out=" + out.toAbsolutePath());
        return command;
    }

    /**
     * {@code java [the JVM flags Chronicle needs] -cp [this JVM's class path] dev.dprof.cli.Main}:
     * the command line in a JVM of its own, with the same commands on its class path (the test bed's
     * and the demo's included).
     */
    static List<String> cli() {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(DprofSettings.chronicleJvmFlags());
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), Main.class.getName()));
        return command;
    }

    /** Runs {@code command}, echoing its merged output, and returns the lines it printed. */
    static List<String> runCapturing(List<String> command, String what) throws CliException, InterruptedException {
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
            List<String> lines = new ArrayList<>();
            try (java.io.BufferedReader out = new java.io.BufferedReader(new java.io.InputStreamReader(
                    process.getInputStream(), java.nio.charset.StandardCharsets.UTF_8))) {
                for (String line = out.readLine(); line != null; line = out.readLine()) {
                    System.out.println(line);
                    lines.add(line);
                }
            }
            int exit = process.waitFor();
            if (exit != 0) {
                throw new CliException(what + " exited with " + exit);
            }
            return lines;
        } catch (java.io.IOException e) {
            throw new CliException("cannot start " + what + ": " + e.getMessage());
        }
    }

    /** Deletes a folder and everything in it; nothing when it does not exist. */
    static void deleteRecursively(Path dir) throws java.io.IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (var walk = Files.walk(dir)) {
            for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
