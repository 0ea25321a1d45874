package dev.dprof.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code ./dprof bench startup [--runs N] [--jdk HOME] [--cpus LIST] [--agent-args ARGS] [--json FILE]}:
 * what the agent adds to a JVM's start and to its memory (target: at most
 * {@value #TARGET_WALL_SEC} s and {@value #TARGET_RSS_MIB} MiB), measured from launch to exit of the
 * programs of {@link StartupProgram} ({@code hello}, {@code pool}) in four variants: no agent; the agent
 * with a YAML of one region and {@code handoffs=off}; the agent with the same YAML and its default
 * ({@code handoffs: auto}); the same with {@code drainer=process}, whose drainer process is the
 * program's child: its CPU time is in the program's (the program's end waits for it and reaps it),
 * and the peak resident set is the larger of the two processes' ({@code getrusage} of children). One untimed round, then {@code N} rounds; a round runs every program in
 * every variant once, one after the other, so a change of the machine's load hits all alike. Every
 * process is pinned with {@code taskset} to the same CPU set.
 *
 * <p>Per run: the wall time from just before the launch to the reaped exit; the time to the first line
 * of {@code main} (see {@link StartupProgram} for why it can be read across processes); the CPU time
 * and peak resident set of the whole process life from {@code getrusage} of the child, which
 * {@code /usr/bin/time} reports when it is installed — without it the peak is {@code VmHWM} read by
 * {@code main} before it returns (the shutdown is then not included, and the output says so) and
 * the CPU time is not reported. The figures are medians over the runs, and the agent's cost is the
 * difference of a variant's median to the no-agent median of the same command.
 */
final class StartupCommand {
    static final double TARGET_WALL_SEC = 0.5;
    static final int TARGET_RSS_MIB = 32;
    static final String[] PROGRAMS = {"hello", "pool"};
    static final Path GNU_TIME = Path.of("/usr/bin/time");
    static final Path TASKSET = Path.of("/usr/bin/taskset");
    /** What {@code /usr/bin/time -f} writes: elapsed s, user s, system s, max RSS KiB. */
    static final String TIME_FORMAT = "%e %U %S %M";
    private static final long RUN_TIMEOUT_SEC = 120;

    enum Variant {
        NONE("no agent"), HANDOFFS_OFF("agent, handoffs=off"), HANDOFFS_AUTO("agent, handoffs auto (default)"),
        PROCESS_DRAINER("agent, auto, drainer=process");

        final String label;

        Variant(String label) {
            this.label = label;
        }
    }

    /** One process: nanoseconds from launch to exit and to {@code main}'s first line, CPU seconds (NaN if unknown), peak RSS in KiB. */
    record Run(long wallNanos, long toMainNanos, double cpuSec, long peakRssKib) {
    }

    /** What {@code /usr/bin/time} said of one process. */
    record Rusage(double userSec, double systemSec, long maxRssKib) {
    }

    private StartupCommand() {
    }

    static int run(List<String> args) throws Exception {
        int runs = 10;
        Path jdk = Path.of(System.getProperty("java.home"));
        String cpus = null;
        String agentArgs = "";
        Path json = null;
        try {
            for (int i = 0; i < args.size(); i++) {
                String a = args.get(i);
                if (i + 1 == args.size()) {
                    return BenchMain.usage("startup: " + a + " needs a value");
                }
                String v = args.get(++i);
                switch (a) {
                    case "--runs" -> runs = Integer.parseInt(v);
                    case "--jdk" -> jdk = Path.of(v);
                    case "--cpus" -> cpus = v;
                    case "--agent-args" -> agentArgs = "," + v;
                    case "--json" -> json = Path.of(v);
                    default -> {
                        return BenchMain.usage("startup: unknown argument '" + a + "'");
                    }
                }
            }
        } catch (NumberFormatException e) {
            return BenchMain.usage("startup: not a number: " + e.getMessage());
        }
        if (runs < 1) {
            return BenchMain.usage("startup: --runs must be at least 1");
        }
        Path java = jdk.resolve("bin/java");
        if (!Files.isExecutable(java)) {
            System.err.println("dprof bench startup: no java in " + jdk + " (give --jdk HOME)");
            return 2;
        }
        Path agentJar = BenchMain.agentJar();
        if (agentJar == null) {
            return 1;
        }
        if (!Files.isExecutable(TASKSET)) {
            System.err.println("dprof bench startup: " + TASKSET + " is missing (util-linux); the runs must be pinned");
            return 1;
        }
        if (cpus == null) {
            cpus = "0-" + (Runtime.getRuntime().availableProcessors() - 1);
        }
        Path work = Files.createTempDirectory("dprof-bench-startup-");
        try {
            return measure(runs, java, cpus, agentJar, agentArgs, json, work);
        } finally {
            ProbeCommand.deleteTree(work);
        }
    }

    private static int measure(int runs, Path java, String cpus, Path agentJar, String agentArgs, Path json,
                               Path work) throws Exception {
        Path classes = copyProgram(work.resolve("classes"));
        Path yaml = Files.writeString(work.resolve("dprof.yaml"), String.join("\n",
                "# written by dprof bench startup: the one region of the trivial program",
                "regions:",
                "  - name: startup.work",
                "    class: " + StartupProgram.class.getName(),
                "    method: work", ""));
        boolean rusage = Files.isExecutable(GNU_TIME);
        OffsetDateTime started = OffsetDateTime.now().truncatedTo(ChronoUnit.SECONDS);
        String loadBefore = Machine.loadAverage();
        String jdkVersion = jdkVersion(java);
        System.out.printf(Locale.ROOT, "dprof bench startup: JDK %s (%s), CPUs %s, 1 untimed round then %d rounds;"
                + " load average %s%n", jdkVersion, java, cpus, runs, loadBefore);
        Map<String, Map<Variant, List<Run>>> results = new LinkedHashMap<>();
        for (String program : PROGRAMS) {
            results.put(program, new EnumMap<>(Variant.class));
            for (Variant v : Variant.values()) {
                results.get(program).put(v, new ArrayList<>());
            }
        }
        for (int round = 0; round <= runs; round++) {
            for (String program : PROGRAMS) {
                for (Variant v : Variant.values()) {
                    Run r = once(java, cpus, classes, agentJar, yaml, agentArgs, program, v, rusage, work);
                    if (round > 0) {
                        results.get(program).get(v).add(r);
                    }
                }
            }
            if (round == 0) {
                System.out.println("dprof bench startup: untimed round done");
            } else if (round % 5 == 0 || round == runs) {
                System.out.printf(Locale.ROOT, "dprof bench startup: %d of %d rounds, load average %s%n", round,
                        runs, Machine.loadAverage());
            }
        }
        String loadAfter = Machine.loadAverage();
        return report(results, runs, java, jdkVersion, cpus, agentArgs, rusage, started, loadBefore, loadAfter, json);
    }

    /** Runs one process and reads its figures; fails with its output when it did not run as expected. */
    private static Run once(Path java, String cpus, Path classes, Path agentJar, Path yaml, String agentArgs,
                            String program, Variant variant, boolean rusage, Path work)
            throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(TASKSET.toString(), "-c", cpus));
        Path timeFile = work.resolve("rusage.txt");
        Files.deleteIfExists(timeFile);
        if (rusage) {
            cmd.addAll(List.of(GNU_TIME.toString(), "-o", timeFile.toString(), "-f", TIME_FORMAT));
        }
        cmd.add(java.toString());
        Path out = work.resolve("queues");
        if (variant != Variant.NONE) {
            cmd.add("-javaagent:" + agentJar + "=config=" + yaml + ",out=" + out
                    + (variant == Variant.HANDOFFS_OFF ? ",handoffs=off" : "")
                    + (variant == Variant.PROCESS_DRAINER ? ",drainer=process" : "") + agentArgs);
        }
        cmd.addAll(List.of("-cp", classes.toString(), StartupProgram.class.getName(), program));
        if (!rusage) {
            cmd.add("--hwm");
        }
        Path stdout = work.resolve("stdout.txt");
        Path stderr = work.resolve("stderr.txt");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(stdout.toFile()).redirectError(stderr.toFile());
        long launch = System.nanoTime();
        Process p = pb.start();
        if (!p.waitFor(RUN_TIMEOUT_SEC, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException(program + " (" + variant.label + ") did not end within " + RUN_TIMEOUT_SEC + " s");
        }
        long exit = System.nanoTime();
        String output = Files.readString(stdout);
        String errors = Files.readString(stderr);
        if (p.exitValue() != 0) {
            throw new IOException(program + " (" + variant.label + ") exited with " + p.exitValue() + ":\n" + output
                    + errors);
        }
        if (variant != Variant.NONE && !errors.contains("dprof: recording")) {
            throw new IOException(program + " (" + variant.label + "): the agent did not start:\n" + errors);
        }
        if (variant == Variant.PROCESS_DRAINER && errors.contains("dprof: drainer process not started")) {
            throw new IOException(program + " (" + variant.label + "): the drainer process did not start:\n" + errors);
        }
        long mainNanos = lineValue(output, StartupProgram.MAIN_LINE);
        if (mainNanos < launch || mainNanos > exit) {
            throw new IOException("the first line of main (" + mainNanos + ") is not between the launch (" + launch
                    + ") and the exit (" + exit + "): System.nanoTime is not one clock for all processes here");
        }
        Run run;
        if (rusage) {
            Rusage u = parseRusage(Files.readString(timeFile));
            run = new Run(exit - launch, mainNanos - launch, u.userSec() + u.systemSec(), u.maxRssKib());
        } else {
            run = new Run(exit - launch, mainNanos - launch, Double.NaN, lineValue(output, StartupProgram.HWM_LINE));
        }
        ProbeCommand.deleteTree(out);
        return run;
    }

    /** The number after {@code prefix} on the line of {@code output} that starts with it; throws naming the line if none. */
    static long lineValue(String output, String prefix) throws IOException {
        for (String line : output.split("\n")) {
            if (line.startsWith(prefix)) {
                try {
                    return Long.parseLong(line.substring(prefix.length()).trim());
                } catch (NumberFormatException e) {
                    throw new IOException("the program's output: not a number in '" + line + "'");
                }
            }
        }
        throw new IOException("the program's output has no line '" + prefix.trim() + " …':\n" + output);
    }

    /**
     * The last line of a {@code /usr/bin/time -f "}{@value #TIME_FORMAT}{@code "} file (a line before it
     * may say the command failed); throws naming the file's text when it does not have that form.
     */
    static Rusage parseRusage(String text) throws IOException {
        String[] lines = text.strip().split("\n");
        String[] parts = lines[lines.length - 1].trim().split("\\s+");
        try {
            if (parts.length == 4) {
                return new Rusage(Double.parseDouble(parts[1]), Double.parseDouble(parts[2]), Long.parseLong(parts[3]));
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IOException("/usr/bin/time -f '" + TIME_FORMAT + "' wrote '" + text.strip() + "'");
    }

    /** The median, or NaN for no values. */
    static double median(double[] values) {
        return values.length == 0 ? Double.NaN : OverheadCommand.quantile(values, 0.5);
    }

    private static int report(Map<String, Map<Variant, List<Run>>> results, int runs, Path java, String jdkVersion,
                              String cpus, String agentArgs, boolean rusage, OffsetDateTime started, String loadBefore,
                              String loadAfter, Path json) throws IOException {
        System.out.println();
        System.out.println("dprof bench startup — " + started + ", " + Machine.describe());
        System.out.println("children: JDK " + jdkVersion + " (" + java + "), pinned to CPUs " + cpus + "; load average"
                + " (1, 5, 15 min) " + loadBefore + " before, " + loadAfter + " after");
        System.out.println("peak RSS: " + (rusage ? "getrusage of the child (/usr/bin/time), whole life"
                : "VmHWM at the end of main (no /usr/bin/time): the shutdown is not included") + "; medians of "
                + runs + " runs; Δ = variant − no agent, same command");
        System.out.printf(Locale.ROOT, "%-6s %-32s %9s %9s %9s %9s %9s %9s %9s %9s%n", "", "", "wall s", "Δ s",
                "main s", "Δ s", "cpu s", "Δ s", "RSS MiB", "Δ MiB");
        ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        ObjectNode root = mapper.createObjectNode();
        root.put("date", started.toString());
        root.put("machine", Machine.describe());
        root.put("jdk", jdkVersion);
        root.put("java", java.toString());
        root.put("cpus", cpus);
        root.put("runs", runs);
        root.put("agentArgs", agentArgs.isEmpty() ? "" : agentArgs.substring(1));
        root.put("loadBefore", loadBefore);
        root.put("loadAfter", loadAfter);
        root.put("peakRssSource", rusage ? "getrusage (/usr/bin/time)" : "VmHWM at the end of main");
        ObjectNode targets = root.putObject("targets");
        targets.put("addedWallSec", TARGET_WALL_SEC);
        targets.put("addedRssMiB", TARGET_RSS_MIB);
        ObjectNode programs = root.putObject("programs");
        boolean met = true;
        for (Map.Entry<String, Map<Variant, List<Run>>> p : results.entrySet()) {
            ObjectNode pj = programs.putObject(p.getKey());
            Medians base = Medians.of(p.getValue().get(Variant.NONE));
            for (Variant v : Variant.values()) {
                Medians m = Medians.of(p.getValue().get(v));
                double dWall = m.wall - base.wall;
                double dRss = m.rssMib - base.rssMib;
                boolean pass = v == Variant.NONE || dWall <= TARGET_WALL_SEC && dRss <= TARGET_RSS_MIB;
                met &= pass;
                System.out.printf(Locale.ROOT, "%-6s %-32s %9.3f %9s %9.3f %9s %9s %9s %9.1f %9s%s%n", p.getKey(),
                        v.label, m.wall, delta(v, dWall, "%+.3f"), m.toMain, delta(v, m.toMain - base.toMain, "%+.3f"),
                        Double.isNaN(m.cpu) ? "-" : String.format(Locale.ROOT, "%.3f", m.cpu),
                        Double.isNaN(m.cpu) ? "-" : delta(v, m.cpu - base.cpu, "%+.3f"), m.rssMib,
                        delta(v, dRss, "%+.1f"), v == Variant.NONE ? "" : pass ? "  PASS" : "  FAIL");
                ObjectNode vj = pj.putObject(v.name().toLowerCase(Locale.ROOT));
                vj.put("label", v.label);
                vj.put("wallSec", m.wall);
                vj.put("toMainSec", m.toMain);
                if (!Double.isNaN(m.cpu)) {
                    vj.put("cpuSec", m.cpu);
                }
                vj.put("peakRssMiB", m.rssMib);
                if (v != Variant.NONE) {
                    vj.put("addedWallSec", dWall);
                    vj.put("addedToMainSec", m.toMain - base.toMain);
                    if (!Double.isNaN(m.cpu)) {
                        vj.put("addedCpuSec", m.cpu - base.cpu);
                    }
                    vj.put("addedRssMiB", dRss);
                    vj.put("verdict", pass ? "PASS" : "FAIL");
                }
                ArrayNode each = vj.putArray("runs");
                for (Run r : p.getValue().get(v)) {
                    ObjectNode rj = each.addObject();
                    rj.put("wallSec", r.wallNanos() / 1e9);
                    rj.put("toMainSec", r.toMainNanos() / 1e9);
                    if (!Double.isNaN(r.cpuSec())) {
                        rj.put("cpuSec", r.cpuSec());
                    }
                    rj.put("peakRssKiB", r.peakRssKib());
                }
            }
        }
        System.out.printf(Locale.ROOT, "targets: Δ wall ≤ %.1f s and Δ RSS ≤ %d MiB for each agent variant: %s%n",
                TARGET_WALL_SEC, TARGET_RSS_MIB, met ? "PASS" : "FAIL");
        root.put("verdict", met ? "PASS" : "FAIL");
        if (json != null) {
            mapper.writeValue(json.toFile(), root);
            System.out.println("dprof bench startup: wrote " + json);
        }
        return 0;
    }

    private static String delta(Variant v, double value, String format) {
        return v == Variant.NONE ? "" : String.format(Locale.ROOT, format, value);
    }

    /** The medians of one program in one variant. */
    private record Medians(double wall, double toMain, double cpu, double rssMib) {
        static Medians of(List<Run> runs) {
            return new Medians(median(runs.stream().mapToDouble(r -> r.wallNanos() / 1e9).toArray()),
                    median(runs.stream().mapToDouble(r -> r.toMainNanos() / 1e9).toArray()),
                    median(runs.stream().mapToDouble(Run::cpuSec).toArray()),
                    median(runs.stream().mapToDouble(r -> r.peakRssKib() / 1024.0).toArray()));
        }
    }

    /** Copies {@link StartupProgram}'s class file into {@code dir} as a class path of its own, away from the bench jar. */
    private static Path copyProgram(Path dir) throws IOException {
        String resource = StartupProgram.class.getName().replace('.', '/') + ".class";
        Path target = dir.resolve(resource);
        Files.createDirectories(target.getParent());
        try (InputStream in = StartupCommand.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IOException(resource + " is not in the bench jar");
            }
            Files.copy(in, target);
        }
        return dir;
    }

    /** The JDK's {@code JAVA_RUNTIME_VERSION} from its {@code release} file, or its path when it has none. */
    private static String jdkVersion(Path java) throws IOException {
        Path release = java.getParent().getParent().resolve("release");
        if (Files.isRegularFile(release)) {
            for (String line : Files.readAllLines(release)) {
                if (line.startsWith("JAVA_RUNTIME_VERSION=")) {
                    return line.substring(line.indexOf('=') + 1).replace("\"", "");
                }
            }
        }
        return java.toString();
    }
}
