package dev.dprof.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.dprof.agent.bootstrap.NativeLibrary;
import dev.dprof.consolidator.read.ProcessQueue;
import dev.dprof.consolidator.read.ReadException;
import dev.dprof.consolidator.read.RecordVisitor;
import dev.dprof.consolidator.read.RunDirs;
import dev.dprof.format.EventBatchReader;
import dev.dprof.format.EventKind;
import dev.dprof.format.FormatException;
import dev.dprof.format.ProcessEnd;
import dev.dprof.format.ProcessHeader;
import dev.dprof.format.RegionInfo;
import dev.dprof.format.ThreadInfo;
import dev.dprof.testsupport.Jdks;
import dev.dprof.settings.DprofSettings;
import dev.dprof.testsupport.TestSettings;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The one helper of the integration tests: starts a test application in a JVM of its own — given
 * nothing but {@code -javaagent:dprof.jar=config=…,out=…} and the system properties its YAML needs —
 * waits for it with a timeout, keeps its stdout and stderr, and reads what the agent recorded with
 * the project's own reader ({@link ProcessQueue}) into a flat list of {@link Event}s.
 *
 * <p>Output goes to files in the test's own directory rather than pipes, so a chatty application
 * can never block on a full pipe, and a test can poll for a line while the application runs; that
 * directory is the JVM's working directory too.
 */
final class ForkedJvm {
    /** How long any forked JVM may take before the test fails (and the JVM is killed). */
    static final Duration TIMEOUT = Duration.ofSeconds(90);

    private final String name;
    private final List<String> launch;
    private final Path dir;
    private final List<String> options = new ArrayList<>();
    private final List<String> classpath = new ArrayList<>();
    private final List<String> args = new ArrayList<>();
    private Path javaHome = Path.of(System.getProperty("java.home"));

    private ForkedJvm(String name, List<String> launch, Path dir) {
        this.name = name;
        this.launch = launch;
        this.dir = dir;
    }

    /** A JVM running {@code main} from the test classes; its output files go to {@code dir}. */
    static ForkedJvm app(Class<?> main, Path dir) {
        ForkedJvm jvm = new ForkedJvm(main.getSimpleName(), List.of(main.getName()), dir);
        jvm.classpath.add(TestSettings.testClasspath());
        return jvm;
    }

    /**
     * {@code dprof ARGS…}: the command line as {@code ./dprof} runs it — its class path
     * ({@code dprof.cli.classpath}: the CLI, and the test bed's or the demo's module where they are
     * tested), the JVM flags Chronicle needs, and the agent jar as {@code -Ddprof.jar}.
     */
    static ForkedJvm dprof(Path dir, Object... args) {
        List<String> launch = new ArrayList<>();
        launch.addAll(DprofSettings.chronicleJvmFlags());
        launch.add("-D" + DprofSettings.AGENT_JAR_PROPERTY + "=" + agentJar());
        launch.addAll(List.of("-cp", TestSettings.cliClasspath(), "dev.dprof.cli.Main"));
        return new ForkedJvm("dprof", launch, dir).args(args);
    }

    /** The agent jar under test. */
    static Path agentJar() {
        Path jar = DprofSettings.agentJar().orElseThrow(() -> TestSettings.notSetByTheBuild(DprofSettings.AGENT_JAR_PROPERTY));
        if (!Files.isRegularFile(jar)) {
            fail(jar + " is missing: the integration tests need the packaged dprof.jar");
        }
        return jar;
    }

    /**
     * Skips a test that needs the JNI library (ring files, the TSC) when dprof.jar holds none for this
     * platform, i.e. was built without a C compiler; but fails under {@code CI=true} with a compiler on
     * the PATH, where a missing library is a broken build.
     */
    static void assumeNativeLibrary() {
        String resource = NativeLibrary.resourceFor(System.getProperty("os.name"), System.getProperty("os.arch"));
        boolean present;
        try (JarFile jar = new JarFile(agentJar().toFile())) {
            present = resource != null && jar.getEntry(resource.substring(1)) != null;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (present) {
            return;
        }
        String why = "dprof.jar holds no JNI library for " + System.getProperty("os.name") + "/"
                + System.getProperty("os.arch") + " (built without a C compiler?)";
        if (TestSettings.ci() && TestSettings.compilerOnPath()) {
            fail(why + ", while CI=true and a C compiler is on the PATH");
        }
        assumeTrue(false, why);
    }

    /** Writes a YAML config into {@code dir} and returns its path. */
    static Path config(Path dir, String yaml) throws IOException {
        return Files.writeString(dir.resolve("dprof.yaml"), yaml);
    }

    /** The jar (or class directory) a class was loaded from in this JVM, e.g. the api or ByteBuddy. */
    static String codeSourceOf(Class<?> type) {
        try {
            return new File(type.getProtectionDomain().getCodeSource().getLocation().toURI()).getPath();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Adds {@code -javaagent:dprof.jar=config=CONFIG,out=OUT}. */
    ForkedJvm agent(Path config, Path out) {
        options.add("-javaagent:" + agentJar() + "=config=" + config + ",out=" + out);
        return this;
    }

    /** Adds {@code -javaagent:dprof.jar=config=CONFIG,out=OUT,MORE} ({@code MORE}: further agent arguments). */
    ForkedJvm agent(Path config, Path out, String more) {
        options.add("-javaagent:" + agentJar() + "=config=" + config + ",out=" + out + "," + more);
        return this;
    }

    /** Adds {@code -Dkey=value}. */
    ForkedJvm property(String key, Object value) {
        options.add("-D" + key + "=" + value);
        return this;
    }

    /** Puts the jar or directory {@code type} came from on the application's class path too. */
    ForkedJvm withClasspathOf(Class<?> type) {
        classpath.add(codeSourceOf(type));
        return this;
    }

    /** Adds a JVM option such as {@code -Xmx256m}. */
    ForkedJvm option(String option) {
        options.add(option);
        return this;
    }

    /** Puts {@code entry}, a jar or class directory, on the application's class path too. */
    ForkedJvm withClasspath(String entry) {
        classpath.add(entry);
        return this;
    }

    ForkedJvm args(Object... values) {
        for (Object v : values) {
            args.add(String.valueOf(v));
        }
        return this;
    }

    /** Runs on another JDK, e.g. {@link Jdks#modern}. */
    ForkedJvm javaHome(Path home) {
        javaHome = home;
        return this;
    }

    private List<String> command() {
        List<String> command = new ArrayList<>();
        command.add(javaHome.resolve("bin").resolve("java").toString());
        command.addAll(options);
        if (!classpath.isEmpty()) {
            command.add("-cp");
            command.add(String.join(File.pathSeparator, classpath));
        }
        command.addAll(launch);
        command.addAll(args);
        return command;
    }

    Running start() throws IOException {
        String file = name + "-" + System.nanoTime();
        Path out = dir.resolve(file + ".out");
        Path err = dir.resolve(file + ".err");
        List<String> command = command();
        // the test's directory is the JVM's working directory too: whatever it writes by a relative name stays there
        Process process = new ProcessBuilder(command).directory(dir.toFile())
                .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        return new Running(process, command, out, err);
    }

    /** Starts the JVM and waits for it to end by itself. */
    Output run() throws IOException, InterruptedException {
        return start().await();
    }

    /** Starts the JVM, waits for it, and fails unless it exited with 0. */
    Output runOk() throws IOException, InterruptedException {
        Output output = run();
        assertEquals(0, output.exitCode(), () -> "the application failed\n" + output);
        return output;
    }


    /** A started JVM. */
    static final class Running {
        private final Process process;
        private final List<String> command;
        private final Path stdout;
        private final Path stderr;

        private Running(Process process, List<String> command, Path stdout, Path stderr) {
            this.process = process;
            this.command = command;
            this.stdout = stdout;
            this.stderr = stderr;
        }

        long pid() {
            return process.pid();
        }

        boolean alive() {
            return process.isAlive();
        }

        /**
         * Waits until the application printed a line starting with {@code prefix}, and returns it; fails
         * on timeout or exit.
         */
        String awaitLine(String prefix) throws IOException, InterruptedException {
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (System.nanoTime() < deadline) {
                Optional<String> line = lines(stdout).stream().filter(l -> l.startsWith(prefix)).findFirst();
                if (line.isPresent()) {
                    return line.get();
                }
                if (!process.isAlive()) {
                    fail("the application ended before printing '" + prefix + "'\n" + output(process.exitValue()));
                }
                Thread.sleep(20);
            }
            process.destroyForcibly();
            return fail("no line '" + prefix + "' within " + TIMEOUT + "\n" + output(-1));
        }

        /** Writes one line to the application's stdin. */
        void println(String line) throws IOException {
            OutputStream in = process.getOutputStream();
            in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            in.flush();
        }

        /** Waits for the JVM to end; kills it and fails after {@link #TIMEOUT}. */
        Output await() throws IOException, InterruptedException {
            if (!process.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly().waitFor();
                fail("the application did not end within " + TIMEOUT + "\n" + output(-1));
            }
            return output(process.exitValue());
        }

        /** SIGTERM ({@link Process#destroy} on Linux): the JVM's shutdown hooks run; returns once it is gone. */
        Output terminate() throws IOException, InterruptedException {
            process.destroy();
            return await();
        }

        /** {@code kill -9} ({@link Process#destroyForcibly} is SIGKILL on Linux); returns once it is gone. */
        Output kill() throws IOException, InterruptedException {
            process.destroyForcibly();
            if (!process.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                fail("the application survived SIGKILL");
            }
            return output(process.exitValue());
        }

        private Output output(int exitCode) throws IOException {
            return new Output(exitCode, lines(stdout), lines(stderr), String.join(" ", command));
        }

        private static List<String> lines(Path file) throws IOException {
            return Files.exists(file) ? Files.readAllLines(file, StandardCharsets.UTF_8) : List.of();
        }
    }

    /** What a JVM printed, and how it ended. */
    record Output(int exitCode, List<String> stdout, List<String> stderr, String command) {
        /** The agent's lines on stderr: every one of them starts with {@code dprof:}. */
        List<String> dprofLines() {
            return stderr.stream().filter(l -> l.startsWith("dprof:")).toList();
        }

        /**
         * The agent's lines but its end-of-run line on what was woven, which must be there once and say
         * that every configured region matched ({@code woven N methods in M classes for K of K configured regions}).
         */
        List<String> dprofLinesAllWoven() {
            java.util.regex.Pattern woven = java.util.regex.Pattern.compile(
                    "dprof: woven \\d+ methods? in \\d+ class(?:es)? for (\\d+) of (\\d+) configured regions");
            List<String> wovenLines = dprofLines().stream().filter(l -> woven.matcher(l).matches()).toList();
            assertEquals(1, wovenLines.size(), this::toString);
            java.util.regex.Matcher m = woven.matcher(wovenLines.get(0));
            assertTrue(m.matches() && m.group(1).equals(m.group(2)), this::toString);
            return dprofLines().stream().filter(l -> !woven.matcher(l).matches()).toList();
        }

        @Override
        public String toString() {
            return "$ " + command + "\nexit " + exitCode + "\n--- stdout\n" + String.join("\n", stdout)
                    + "\n--- stderr\n" + String.join("\n", stderr);
        }
    }

    /** One event as the reader returns it, with its region resolved to a name ({@code null} for region 0). */
    record Event(long thread, EventKind kind, String region, long tick, long truth, long a, long b) {
    }

    /** Everything one process recorded, read with {@link ProcessQueue}. */
    record Recording(Path dir, ProcessHeader header, Optional<ProcessEnd> end, Map<Integer, RegionInfo> regions,
                     Map<Long, String> threadNames, List<Event> events, List<String> problems) {

        /** Reads the only process queue under {@code out} (the agent's {@code out=} directory). */
        static Recording readOnly(Path out) throws ReadException {
            List<Path> queues = RunDirs.expand(List.of(out));
            assertEquals(1, queues.size(), () -> "expected one process queue under " + out + ": " + queues);
            return read(queues.get(0));
        }

        /** Reads one process queue directory. */
        static Recording read(Path queueDir) throws ReadException {
            Map<Integer, RegionInfo> regions = new LinkedHashMap<>();
            Map<Long, String> threads = new LinkedHashMap<>();
            List<Event> events = new ArrayList<>();
            ProcessEnd[] end = new ProcessEnd[1];
            try (ProcessQueue queue = ProcessQueue.open(queueDir)) {
                queue.read(new RecordVisitor() {
                    @Override
                    public void region(RegionInfo region) {
                        regions.put(region.id(), region);
                    }

                    @Override
                    public void thread(ThreadInfo thread) {
                        threads.put(thread.threadId(), thread.name());
                    }

                    @Override
                    public void batch(EventBatchReader batch) throws FormatException {
                        while (batch.next()) {
                            RegionInfo region = regions.get(batch.region);
                            if (region == null && batch.region != 0) {
                                throw new FormatException("event of region " + batch.region + " before its region record");
                            }
                            events.add(new Event(batch.threadId(), batch.kind, region == null ? null : region.name(),
                                    batch.tick, batch.truth, batch.a, batch.b));
                        }
                    }

                    @Override
                    public void end(ProcessEnd processEnd) {
                        end[0] = processEnd;
                    }
                });
                return new Recording(queueDir, queue.header(), Optional.ofNullable(end[0]), regions, threads,
                        events, List.copyOf(queue.problems()));
            }
        }

        /** The region table entry named {@code name}; fails if there is none. */
        RegionInfo region(String name) {
            return regions.values().stream().filter(r -> r.name().equals(name)).findFirst()
                    .orElseThrow(() -> new AssertionError("no region '" + name + "' in " + regions.values()));
        }

        List<Event> events(String region, EventKind kind) {
            return events.stream().filter(e -> e.kind() == kind && region.equals(e.region())).toList();
        }

        long count(String region, EventKind kind) {
            return events(region, kind).size();
        }

        long count(EventKind kind) {
            return events.stream().filter(e -> e.kind() == kind).count();
        }

        /** Each thread's events, in the order the thread recorded them. */
        Map<Long, List<Event>> byThread() {
            return events.stream().collect(Collectors.groupingBy(Event::thread, LinkedHashMap::new, Collectors.toList()));
        }

        /** The events of the thread named {@code name}; fails unless exactly one thread has that name. */
        List<Event> thread(String name) {
            List<Long> ids = threadNames.entrySet().stream().filter(e -> e.getValue().equals(name))
                    .map(Map.Entry::getKey).toList();
            assertEquals(1, ids.size(), () -> "threads named '" + name + "': " + threadNames);
            return byThread().getOrDefault(ids.get(0), List.of());
        }

        /** The process ended normally and says it lost nothing. */
        ProcessEnd requireCleanEnd() {
            ProcessEnd processEnd = end.orElseThrow(() -> new AssertionError(dir + ": no ProcessEnd record"));
            assertEquals(0, processEnd.lostEvents(), () -> "lost events: " + processEnd);
            assertEquals(List.of(), problems, "reader problems");
            return processEnd;
        }
    }
}
