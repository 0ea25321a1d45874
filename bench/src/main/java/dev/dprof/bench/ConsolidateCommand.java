package dev.dprof.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.dprof.settings.DprofSettings;
import dev.dprof.synthetic.SyntheticRunMain;
import java.io.File;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * {@code dprof bench consolidate [--events N] [--processes P] [--threads T] [--iterations I]
 * [--repeats R] [--xmx SIZE] [--truth] [--json FILE] [--jfr FILE] [--work DIR] [--keep]}: end-to-end
 * consolidation from disk with FreeZer.
 *
 * <ol>
 * <li>Two synthetic runs are written as real queues and calibration files by {@code SyntheticRun}
 * (module {@code synthetic}, in a JVM of its own): P processes in P simulated clock domains, T
 * worker threads each, a BSP workload of I iterations with one message per worker per iteration between processes. The
 * large run holds N events, the small one N/10 — same processes, threads, iterations, messages
 * and real duration, only denser instrumentation.</li>
 * <li>Every consolidation runs in a fresh JVM with {@code -Xms = -Xmx = SIZE} ({@link ConsolidateFork}) and
 * the class-data archive that one untimed run wrote (as {@code ./dprof} maps its own after its first run),
 * R times each, the modes interleaved: {@code product} ({@code Consolidator.run}, the figure),
 * {@code sound} and {@code point} (the same pipeline through {@code ConversionVariants}, with the sound
 * conversion or a least-squares line {@code a + b·k}), and {@code product} on the small run.</li>
 * </ol>
 * Figures (medians over R): {@code eventsPerSec} = N ÷ wall time of the consolidation (read,
 * convert, merge, write; no JVM start-up); {@code peakHeapMb}/{@code peakHeapMbSmall}: the sum of
 * the heap pools' peak usage in MiB, large and small run; {@code soundVsPointRatio} = time(sound) ÷
 * time(point).
 */
final class ConsolidateCommand {
    static final double TARGET_EVENTS_PER_SEC = 10e6;
    static final double TARGET_SOUND_VS_POINT = 1.10;
    /** "The same within noise": the large run's peak at most this much above the small run's. */
    static final double HEAP_TOLERANCE = 1.15;
    static final String GENERATOR = SyntheticRunMain.class.getName();
    static final String DRIFT = "bounded:1";
    static final long BODY_MICROS = 20_000;
    static final long SEED = 1;
    static final String NOTE = "shared VM, no CPU pinning: the consolidating thread, JIT and GC threads share the"
            + " machine's cores with whatever else runs; thread CPU time is reported beside wall time for that reason";

    /** What to generate and how to measure. */
    record Plan(long events, int processes, int threads, int iterations, int repeats, String xmx, boolean truth) {
        String traceArgs(long n) {
            return String.format(Locale.ROOT, "--processes %d --threads %d --iterations %d --events %d --seed %d "
                    + "--body-us %d%s", processes, threads, iterations, n, SEED, BODY_MICROS, truth ? "" : " --no-truth");
        }
    }

    /** One fork's figures. */
    record Run(String mode, String trace, long events, long ns, long cpuNs, long processCpuNs, long peakHeapBytes, long liveAfterGcMaxBytes,
               long collections, long gcMillis, String gc, String pools, Map<String, Long> phases) {
        double eventsPerSec() {
            return events * 1e9 / ns;
        }
    }

    private ConsolidateCommand() {
    }

    static int run(List<String> args) throws Exception {
        long events = 20_000_000L;
        int processes = 8;
        int threads = 4;
        int iterations = 500;
        int repeats = 3;
        String xmx = "1g";
        boolean truth = false;
        boolean keep = false;
        Path json = null;
        Path jfr = null;
        Path work = null;
        try {
            for (int i = 0; i < args.size(); i++) {
                String a = args.get(i);
                switch (a) {
                    case "--events" -> events = Long.parseLong(value(args, ++i, a));
                    case "--processes" -> processes = Integer.parseInt(value(args, ++i, a));
                    case "--threads" -> threads = Integer.parseInt(value(args, ++i, a));
                    case "--iterations" -> iterations = Integer.parseInt(value(args, ++i, a));
                    case "--repeats" -> repeats = Integer.parseInt(value(args, ++i, a));
                    case "--xmx" -> xmx = value(args, ++i, a);
                    case "--json" -> json = Path.of(value(args, ++i, a));
                    case "--jfr" -> jfr = Path.of(value(args, ++i, a)).toAbsolutePath();
                    case "--work" -> work = Path.of(value(args, ++i, a)).toAbsolutePath();
                    case "--truth" -> truth = true;
                    case "--keep" -> keep = true;
                    default -> {
                        return BenchMain.usage("unknown argument to consolidate: " + a);
                    }
                }
            }
        } catch (IllegalArgumentException e) {
            return BenchMain.usage("consolidate: " + e.getMessage());
        }
        if (processes < 2 || threads < 1 || iterations < 1 || repeats < 1 || events < 10L * processes * threads * iterations) {
            return BenchMain.usage("consolidate: need ≥ 2 processes, ≥ 1 thread, ≥ 1 iteration and repeat, and"
                    + " events ≥ 10 × processes × threads × iterations");
        }
        boolean temporary = work == null;
        if (temporary) {
            work = Files.createTempDirectory("dprof-bench-consolidate-");
        }
        Plan plan = new Plan(events, processes, threads, iterations, repeats, xmx, truth);
        try {
            return measure(plan, snapshotClassPath(work), work, json, jfr);
        } finally {
            if (temporary && !keep) {
                deleteTree(work);
            } else {
                System.out.println("dprof bench consolidate: kept " + work);
            }
        }
    }

    /**
     * The class path for the forks: this JVM's jars (the bench jar holds the trace generator and the
     * consolidator), copied into {@code work}, so that builds running meanwhile (mvn install) cannot
     * replace them under running forks, and so that the class path holds only jars, as class-data
     * sharing requires. Creates {@code work} if it does not exist ({@code --work DIR} names a new one).
     */
    static String snapshotClassPath(Path work) throws IOException {
        Files.createDirectories(work);
        StringBuilder jars = new StringBuilder();
        int n = 0;
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path source = Path.of(entry);
            if (Files.isRegularFile(source)) {
                Path copy = work.resolve("classpath-" + n++ + "-" + source.getFileName());
                Files.copy(source, copy, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                source = copy;
            }
            jars.append(jars.length() == 0 ? "" : File.pathSeparator).append(source);
        }
        return jars.toString();
    }

    private static String value(List<String> args, int i, String option) {
        if (i >= args.size()) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args.get(i);
    }

    private static int measure(Plan plan, String classPath, Path work, Path json, Path jfr) throws Exception {
        OffsetDateTime started = OffsetDateTime.now().truncatedTo(ChronoUnit.SECONDS);
        String loadBefore = loadAverage();
        System.out.println("dprof bench consolidate: " + Machine.describe() + "; load average " + loadBefore);

        Properties large = generate(plan, plan.events(), work.resolve("large"), classPath);
        Properties small = generate(plan, plan.events() / 10, work.resolve("small"), classPath);
        long largeEvents = Long.parseLong(large.getProperty("events"));
        long smallEvents = Long.parseLong(small.getProperty("events"));

        List<String> cds = classDataArchive(plan, small, smallEvents, work, classPath);

        List<Run> runs = new ArrayList<>();
        String[] modes = {"product", "sound", "point"};
        for (int r = 0; r < plan.repeats(); r++) {
            for (int m = 0; m < modes.length; m++) {
                String mode = modes[(m + r) % modes.length]; // rotate, so no mode always runs first
                runs.add(fork(plan, mode, "large", large, largeEvents, work, classPath, null, cds));
            }
            runs.add(fork(plan, "product", "small", small, smallEvents, work, classPath, null, cds));
        }
        if (jfr != null) {
            System.out.println("dprof bench consolidate: one more product run with JFR (not in the figures) → " + jfr);
            fork(plan, "product", "large", large, largeEvents, work, classPath, jfr, cds);
        }

        Figures f = Figures.of(runs, largeEvents);
        String load = loadBefore + " before, " + loadAverage() + " after";
        report(plan, f, runs, large, small, started, load);
        if (json != null) {
            writeJson(json, plan, f, runs, large, small, started, load);
            System.out.println("dprof bench: wrote " + json);
        }
        return 0;
    }

    /** Writes a synthetic run (or reuses one written with the same arguments) and returns its summary. */
    static Properties generate(Plan plan, long events, Path dir, String classPath) throws Exception {
        Path summary = dir.resolve("synthetic.properties");
        Path argsFile = dir.resolve("arguments");
        String traceArgs = plan.traceArgs(events);
        if (Files.isRegularFile(summary) && Files.isRegularFile(argsFile) && Files.readString(argsFile).equals(traceArgs)) {
            System.out.println("dprof bench consolidate: reusing the trace in " + dir);
            return load(summary);
        }
        if (Files.exists(dir)) {
            deleteTree(dir);
        }
        Files.createDirectories(dir);
        List<String> cmd = javaCommand(classPath, "4g", null);
        cmd.add(GENERATOR);
        cmd.add("--out");
        cmd.add(dir.toString());
        cmd.addAll(Arrays.asList(traceArgs.split(" ")));
        System.out.println("dprof bench consolidate: generating " + events + " events in " + dir);
        execute(cmd, dir.resolve("generate.log"));
        Files.writeString(argsFile, traceArgs);
        return load(summary);
    }

    /**
     * The flags that map a class-data archive into every timed fork, as {@code ./dprof} does after
     * its first run: the archive is written by one untimed consolidation of the small trace.
     */
    private static List<String> classDataArchive(Plan plan, Properties small, long smallEvents, Path work,
                                                 String classPath) throws Exception {
        Path archive = work.resolve("consolidate.jsa");
        Files.deleteIfExists(archive);
        List<String> quiet = List.of("-Xlog:cds=off", "-Xlog:cds+dynamic=off");
        List<String> dump = new ArrayList<>(quiet);
        dump.add("-XX:ArchiveClassesAtExit=" + archive);
        fork(plan, "sound", "small", small, smallEvents, work, classPath, null, dump);
        System.out.printf(Locale.ROOT, "dprof bench consolidate: class-data archive %.1f MiB from one untimed run"
                + " (the timed runs map it, as ./dprof does after its first run)%n", Files.size(archive) / 1048576.0);
        List<String> use = new ArrayList<>(quiet);
        use.add("-XX:SharedArchiveFile=" + archive);
        return use;
    }

    private static Run fork(Plan plan, String mode, String trace, Properties generated, long expectedEvents, Path work,
                            String classPath, Path jfr, List<String> flags) throws Exception {
        Path out = work.resolve("profile-" + mode + "-" + trace);
        Path result = work.resolve("result-" + mode + "-" + trace + ".properties");
        if (Files.exists(out)) {
            deleteTree(out);
        }
        List<String> cmd = javaCommand(classPath, plan.xmx(), jfr, flags);
        cmd.add(ConsolidateFork.class.getName());
        cmd.addAll(List.of(mode, generated.getProperty("runDir"), generated.getProperty("calibrationDir"), out.toString(),
                result.toString(), DRIFT));
        execute(cmd, work.resolve("fork-" + mode + "-" + trace + ".log"));
        Properties p = load(result);
        Files.delete(result);
        deleteTree(out);
        Run run = new Run(mode, trace, Long.parseLong(p.getProperty("events")), Long.parseLong(p.getProperty("ns")),
                Long.parseLong(p.getProperty("cpuNs")), Long.parseLong(p.getProperty("processCpuNs")),
                Long.parseLong(p.getProperty("peakHeapBytes")), Long.parseLong(p.getProperty("liveAfterGcMaxBytes")),
                Long.parseLong(p.getProperty("collections")), Long.parseLong(p.getProperty("gcMillis")),
                p.getProperty("gc"), p.getProperty("pools"), phases(p));
        if (run.events() != expectedEvents) {
            throw new IllegalStateException(mode + " on the " + trace + " trace wrote " + run.events()
                    + " events, the trace holds " + expectedEvents);
        }
        System.out.printf(Locale.ROOT, "  %-8s %-6s %,12d events  %8.3f s (thread cpu %7.3f s, process cpu %7.3f s)"
                        + "  %6.2f M events/s  peak heap %5d MiB  live after GC %s  %d GCs %d ms%n", mode, trace,
                run.events(), run.ns() / 1e9, run.cpuNs() / 1e9, run.processCpuNs() / 1e9,
                run.eventsPerSec() / 1e6, run.peakHeapBytes() >> 20,
                run.collections() == 0 ? "n/a (no GC)" : (run.liveAfterGcMaxBytes() >> 20) + " MiB", run.collections(),
                run.gcMillis());
        return run;
    }

    /** The copy's phases ({@code phase.N = name=ns}), in order. */
    private static Map<String, Long> phases(Properties p) {
        Map<String, Long> phases = new LinkedHashMap<>();
        for (int i = 0; p.getProperty("phase." + i) != null; i++) {
            String v = p.getProperty("phase." + i);
            int eq = v.lastIndexOf('=');
            phases.put(v.substring(0, eq), Long.parseLong(v.substring(eq + 1)));
        }
        return phases;
    }

    /** Median per phase over the runs of a mode on the large trace, in seconds. */
    static Map<String, Double> phaseMedians(List<Run> runs, String mode) {
        Map<String, Double> medians = new LinkedHashMap<>();
        List<Run> of = runs.stream().filter(r -> r.mode().equals(mode) && r.trace().equals("large")).toList();
        if (of.isEmpty()) {
            return medians;
        }
        for (String phase : of.get(0).phases().keySet()) {
            medians.put(phase, Figures.median(of.stream().mapToDouble(r -> r.phases().getOrDefault(phase, 0L) / 1e9)
                    .sorted().toArray()));
        }
        return medians;
    }

    /** {@code java} with the JVM flags Chronicle needs, a fixed heap, the class path. */
    static List<String> javaCommand(String classPath, String heap, Path jfr) {
        return javaCommand(classPath, heap, jfr, List.of());
    }

    /** The same with more JVM flags (the class-data archive). */
    static List<String> javaCommand(String classPath, String heap, Path jfr, List<String> flags) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(DprofSettings.chronicleJvmFlags());
        cmd.add("-Xms" + heap);
        cmd.add("-Xmx" + heap);
        cmd.addAll(flags);
        if (jfr != null) {
            cmd.add("-XX:StartFlightRecording=filename=" + jfr + ",settings=profile");
        }
        cmd.add("-cp");
        cmd.add(classPath);
        return cmd;
    }

    static void execute(List<String> cmd, Path log) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        int rc = p.waitFor();
        if (rc != 0) {
            throw new IOException("a forked JVM exited with " + rc + " (log " + log + "):\n" + tail(log)
                    + "\ncommand: " + String.join(" ", cmd));
        }
    }

    private static String tail(Path log) throws IOException {
        List<String> lines = Files.readAllLines(log);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    }

    static Properties load(Path file) throws IOException {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file)) {
            p.load(r);
        }
        return p;
    }

    /** See {@link dev.dprof.clock.HostLoad#average()}. */
    static String loadAverage() {
        return dev.dprof.clock.HostLoad.average();
    }

    /** Medians over the repeats. */
    record Figures(double eventsPerSec, double peakHeapMb, double peakHeapMbSmall, double liveHeapMb,
                   double liveHeapMbSmall, double soundVsPointRatio, double copyVsProduct, double eventsPerCpuSec,
                   double soundVsPointRatioCpu, Map<String, double[]> seconds, Map<String, double[]> cpuSeconds) {
        static Figures of(List<Run> runs, long events) {
            Map<String, double[]> seconds = new LinkedHashMap<>();
            for (String key : List.of("product/large", "sound/large", "point/large", "product/small")) {
                seconds.put(key, runs.stream().filter(r -> key.equals(r.mode() + "/" + r.trace()))
                        .mapToDouble(r -> r.ns() / 1e9).sorted().toArray());
            }
            Map<String, double[]> cpu = new LinkedHashMap<>();
            for (String key : seconds.keySet()) {
                cpu.put(key, runs.stream().filter(r -> key.equals(r.mode() + "/" + r.trace()))
                        .mapToDouble(r -> r.cpuNs() / 1e9).sorted().toArray());
            }
            double product = median(seconds.get("product/large"));
            double sound = median(seconds.get("sound/large"));
            double point = median(seconds.get("point/large"));
            return new Figures(events / product,
                    median(runs, "product", "large", Run::peakHeapBytes) / (1 << 20),
                    median(runs, "product", "small", Run::peakHeapBytes) / (1 << 20),
                    median(runs, "product", "large", Run::liveAfterGcMaxBytes) / (1 << 20),
                    median(runs, "product", "small", Run::liveAfterGcMaxBytes) / (1 << 20),
                    sound / point, sound / product, events / median(cpu.get("product/large")),
                    median(cpu.get("sound/large")) / median(cpu.get("point/large")), seconds, cpu);
        }

        private static double median(List<Run> runs, String mode, String trace, java.util.function.ToLongFunction<Run> f) {
            return median(runs.stream().filter(r -> r.mode().equals(mode) && r.trace().equals(trace))
                    .mapToDouble(r -> f.applyAsLong(r)).sorted().toArray());
        }

        static double median(double[] sorted) {
            int n = sorted.length;
            return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
        }

        boolean throughput() {
            return eventsPerSec >= TARGET_EVENTS_PER_SEC;
        }

        boolean heap() {
            return peakHeapMb <= HEAP_TOLERANCE * peakHeapMbSmall;
        }

        boolean soundCost() {
            return soundVsPointRatio <= TARGET_SOUND_VS_POINT;
        }
    }

    private static void report(Plan plan, Figures f, List<Run> runs, Properties large, Properties small,
                               OffsetDateTime started, String load) {
        System.out.println();
        System.out.println("dprof bench consolidate — " + started + ", " + Machine.describe());
        System.out.println("load average (1, 5, 15 min): " + load + "; " + NOTE);
        System.out.println("trace: " + large.getProperty("spec") + "; " + large.getProperty("messages") + " messages, "
                + large.getProperty("realSeconds") + " s of simulated time, truth column " + plan.truth()
                + "; small trace: " + small.getProperty("events") + " events");
        System.out.println("every consolidation in a fresh JVM, -Xms" + plan.xmx() + " -Xmx" + plan.xmx() + ", GC "
                + runs.get(0).gc() + "; " + plan.repeats() + " repeats, medians; drift model " + DRIFT);
        System.out.println();
        System.out.printf(Locale.ROOT, "  %-20s %-26s %-22s %s%n", "figure", "measured", "target", "");
        System.out.printf(Locale.ROOT, "  %-20s %-26s %-22s %s%n", "eventsPerSec",
                String.format(Locale.ROOT, "%.2f M/s (%.2f s)", f.eventsPerSec() / 1e6,
                        Figures.median(f.seconds().get("product/large"))),
                "≥ 10 M/s", verdict(f.throughput()));
        System.out.printf(Locale.ROOT, "  %-20s %-26s %-22s %s%n", "peakHeapMb",
                String.format(Locale.ROOT, "%.0f MiB (live %.0f)", f.peakHeapMb(), f.liveHeapMb()),
                String.format(Locale.ROOT, "≤ %.2f × small", HEAP_TOLERANCE), verdict(f.heap()));
        System.out.printf(Locale.ROOT, "  %-20s %-26s%n", "peakHeapMbSmall",
                String.format(Locale.ROOT, "%.0f MiB (live %.0f)", f.peakHeapMbSmall(), f.liveHeapMbSmall()));
        System.out.printf(Locale.ROOT, "  %-20s %-26s %-22s %s%n", "soundVsPointRatio",
                String.format(Locale.ROOT, "%.3f", f.soundVsPointRatio()), "≤ 1.10", verdict(f.soundCost()));
        System.out.printf(Locale.ROOT, "  %-20s %-26s %s%n", "(eventsPerCpuSec)",
                String.format(Locale.ROOT, "%.2f M/s", f.eventsPerCpuSec() / 1e6),
                "per second of the consolidating thread's CPU time: the cost without waiting for a core");
        System.out.printf(Locale.ROOT, "  %-20s %-26s %s%n", "(ratio by cpu time)",
                String.format(Locale.ROOT, "%.3f", f.soundVsPointRatioCpu()), "soundVsPointRatio from thread CPU times");
        System.out.printf(Locale.ROOT, "  %-20s %-26s %s%n", "(copy vs product)",
                String.format(Locale.ROOT, "%.3f", f.copyVsProduct()),
                "time of ConversionVariants (sound) ÷ Consolidator.run: the copy is faithful near 1");
        for (String mode : List.of("sound", "point")) {
            Map<String, Double> phases = phaseMedians(runs, mode);
            if (!phases.isEmpty()) {
                System.out.println("  phases of the copy, " + mode + " (median wall seconds, large trace):");
                phases.forEach((k, v) -> System.out.printf(Locale.ROOT, "    %8.3f s  %6.1f ns/event  %s%n", v,
                        v * 1e9 / Long.parseLong(large.getProperty("events")), k));
            }
        }
        f.seconds().forEach((k, v) -> System.out.printf(Locale.ROOT, "  %-20s wall %s s, thread cpu %s s%n", "(" + k + ")",
                Arrays.toString(Arrays.stream(v).map(x -> Math.round(x * 1000) / 1000.0).toArray()),
                Arrays.toString(Arrays.stream(f.cpuSeconds().get(k)).map(x -> Math.round(x * 1000) / 1000.0).toArray())));
    }

    static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (java.util.stream.Stream<Path> all = Files.walk(root)) {
            for (Path p : all.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    private static String verdict(boolean pass) {
        return pass ? "PASS" : "FAIL";
    }

    private static void writeJson(Path file, Plan plan, Figures f, List<Run> runs, Properties large, Properties small,
                                  OffsetDateTime started, String load) throws IOException {
        ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        ObjectNode root = mapper.createObjectNode();
        root.put("eventsPerSec", f.eventsPerSec());
        root.put("peakHeapMb", f.peakHeapMb());
        root.put("peakHeapMbSmall", f.peakHeapMbSmall());
        root.put("soundVsPointRatio", f.soundVsPointRatio());

        ObjectNode context = root.putObject("context");
        context.put("liveHeapMb", f.liveHeapMb());
        context.put("liveHeapMbSmall", f.liveHeapMbSmall());
        context.put("copyVsProduct", f.copyVsProduct());
        context.put("eventsPerCpuSec", f.eventsPerCpuSec());
        context.put("soundVsPointRatioCpu", f.soundVsPointRatioCpu());
        context.put("heapUnit", "MiB; peak = sum of the heap pools' peak usage (MemoryPoolMXBean), live = largest"
                + " heap occupancy right after a GC (GC notifications; 0 when no GC ran)");
        context.put("definitions", "eventsPerSec = events / median wall time of Consolidator.run (FreeZer, " + DRIFT
                + ") in a fresh JVM: read both passes, convert, merge, write; JVM start-up excluded. soundVsPointRatio"
                + " = median time of the pipeline copy with the sound conversion (calibration polygons, message"
                + " constraints, bulk sound conversion) / the same copy with a least-squares line a + b*k (no"
                + " polygons, no message constraints).");

        ObjectNode targets = root.putObject("targets");
        target(targets, "eventsPerSec >= 10e6", f.eventsPerSec(), TARGET_EVENTS_PER_SEC, f.throughput());
        target(targets, "peakHeapMb <= 1.15 * peakHeapMbSmall", f.peakHeapMb() / f.peakHeapMbSmall(), HEAP_TOLERANCE,
                f.heap());
        target(targets, "soundVsPointRatio <= 1.10", f.soundVsPointRatio(), TARGET_SOUND_VS_POINT, f.soundCost());

        ObjectNode trace = root.putObject("trace");
        for (String k : List.of("spec", "events", "messages", "processes", "threads", "realSeconds", "truthColumn")) {
            trace.put(k, large.getProperty(k));
        }
        trace.put("smallEvents", small.getProperty("events"));
        trace.put("generator", "consolidator test fixture SyntheticRun: real Chronicle queues and .cal files");

        ObjectNode phases = root.putObject("phasesSeconds");
        for (String mode : List.of("sound", "point")) {
            ObjectNode m = phases.putObject(mode);
            phaseMedians(runs, mode).forEach(m::put);
        }
        ArrayNode all = root.putArray("runs");
        for (Run r : runs) {
            all.addObject().put("mode", r.mode()).put("trace", r.trace()).put("events", r.events())
                    .put("seconds", r.ns() / 1e9).put("threadCpuSeconds", r.cpuNs() / 1e9)
                    .put("processCpuSeconds", r.processCpuNs() / 1e9).put("eventsPerSec", r.eventsPerSec())
                    .put("peakHeapMb", r.peakHeapBytes() / (double) (1 << 20))
                    .put("liveHeapMb", r.liveAfterGcMaxBytes() / (double) (1 << 20))
                    .put("collections", r.collections()).put("gcMillis", r.gcMillis()).put("pools", r.pools());
        }

        ObjectNode machine = root.putObject("machine");
        machine.put("date", started.toString());
        machine.put("command", String.format(Locale.ROOT, "./dprof bench consolidate --events %d --processes %d"
                + " --threads %d --iterations %d --repeats %d --xmx %s%s --json %s", plan.events(), plan.processes(),
                plan.threads(), plan.iterations(), plan.repeats(), plan.xmx(), plan.truth() ? " --truth" : "", file));
        machine.put("jdk", Runtime.version().toString());
        machine.put("cpus", Runtime.getRuntime().availableProcessors());
        machine.put("cpuModel", Machine.cpuModel());
        machine.put("note", NOTE);
        machine.put("loadAverage", load);
        machine.put("heap", "-Xms" + plan.xmx() + " -Xmx" + plan.xmx());
        machine.put("gc", runs.get(0).gc());

        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        mapper.writeValue(file.toFile(), root);
    }

    private static void target(ObjectNode targets, String name, double measured, double bound, boolean pass) {
        ObjectNode t = targets.putObject(name);
        t.put("measured", measured);
        t.put("bound", bound);
        t.put("pass", pass);
    }
}
