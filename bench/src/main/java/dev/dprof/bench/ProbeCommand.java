package dev.dprof.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.dprof.consolidator.read.RunDirs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * {@code dprof bench probe [--json FILE] [--quick] [--keep]}: what one probe costs, against the
 * floor any probe could reach and against JFR, plus the disk and heap it costs per event.
 *
 * <ol>
 * <li>One JMH run of the four {@link ProbeBench} benchmarks, every fork with the real agent
 * attached and the GC profiler on. Figures: {@code probeNs = (instrumented − plain) / 2},
 * {@code limitNs = (limit − plain) / 2}, {@code jfrNs = jfr − plain} (per event: a dprof region
 * is two events, a JFR region one), {@code allocBytesPerEvent = gc.alloc.rate.norm(instrumented) / 2}.
 * Afterwards every fork's queue is read back: a fork that lost an event, or did not write its
 * end record, fails the whole run.</li>
 * <li>One JVM with the agent running {@link EventLoop} for {@value #DISK_CALLS} calls
 * (2 × that many events): {@code bytesPerEvent} = bytes allocated on disk ÷ events read back.</li>
 * </ol>
 */
final class ProbeCommand {
    static final long DISK_CALLS = 5_000_000L;
    static final double PROBE_VS_LIMIT = 1.3;
    static final double PROBE_VS_JFR = 0.2;
    static final double MAX_BYTES_PER_EVENT = 12;
    static final double MAX_ALLOC_PER_EVENT = 0.01;
    /** The figures' benchmarks, then two that split the floor into its parts (context only). */
    private static final String[] BENCHMARKS = {"plain", "instrumented", "limit", "jfr", "jni", "nanoTime"};

    /** JMH settings: full (for BENCHMARKS.md) or quick (a smoke run). */
    record Plan(int forks, int warmupIterations, int warmupMs, int iterations, int iterationMs) {
        static final Plan FULL = new Plan(2, 4, 1000, 6, 1000);
        static final Plan QUICK = new Plan(1, 2, 300, 3, 300);
    }

    private ProbeCommand() {
    }

    static int run(List<String> args) throws Exception {
        Path json = null;
        boolean quick = false;
        boolean keep = false;
        int ringEvents = ProbeConfig.RING_EVENTS;
        for (int i = 0; i < args.size(); i++) {
            switch (args.get(i)) {
                case "--json" -> {
                    if (i + 1 == args.size()) {
                        return BenchMain.usage("--json needs a file");
                    }
                    json = Path.of(args.get(++i));
                }
                case "--ring-events" -> {
                    int n = i + 1 < args.size() ? parseInt(args.get(++i)) : -1;
                    if (n < 1024 || n > 1 << 24 || (n & (n - 1)) != 0) {
                        return BenchMain.usage("--ring-events needs a power of two in 1024..16777216");
                    }
                    ringEvents = n;
                }
                case "--quick" -> quick = true;
                case "--keep" -> keep = true;
                default -> {
                    return BenchMain.usage("unknown argument to probe: " + args.get(i));
                }
            }
        }
        Path agentJar = BenchMain.agentJar();
        if (agentJar == null) {
            return 1;
        }
        Plan plan = quick ? Plan.QUICK : Plan.FULL;
        Path work = Files.createTempDirectory("dprof-bench-");
        try {
            return measure(agentJar, work, plan, ringEvents, json);
        } finally {
            if (keep) {
                System.out.println("dprof bench: kept " + work);
            } else {
                deleteTree(work);
            }
        }
    }

    private static int parseInt(String s) {
        try {
            return Integer.parseInt(s);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static int measure(Path agentJar, Path work, Plan plan, int ringEvents, Path json) throws Exception {
        Path yaml = ProbeConfig.write(work, ringEvents);
        OffsetDateTime started = OffsetDateTime.now().truncatedTo(ChronoUnit.SECONDS);
        String loadBefore = Machine.loadAverage();
        System.out.println("dprof bench probe: agent " + agentJar + ", config " + yaml + ", load average " + loadBefore);

        // 1. JMH: the four benchmarks in one run, each fork with the agent.
        Path jmhOut = Files.createDirectories(work.resolve("jmh-queues"));
        Map<String, RunResult> results = runJmh(agentJar, yaml, jmhOut, plan);
        List<QueueTally> jmhQueues = new ArrayList<>();
        for (Path q : RunDirs.expand(List.of(jmhOut))) {
            jmhQueues.add(QueueTally.read(q, false));
        }
        deleteTree(jmhOut);

        // 2. Disk: a separate JVM writes 2 × DISK_CALLS events, read back exactly.
        System.out.println();
        System.out.println("dprof bench probe: disk run, " + DISK_CALLS + " calls = " + 2 * DISK_CALLS + " events");
        DiskRun.Result disk = DiskRun.run(agentJar, yaml, Files.createDirectories(work.resolve("disk-queue")), DISK_CALLS);

        Figures f = Figures.of(results, disk);
        String load = loadBefore + " before, " + Machine.loadAverage() + " after";
        boolean jmhLossless = jmhQueues.size() == plan.forks() * BENCHMARKS.length
                && jmhQueues.stream().allMatch(QueueTally::lossless);
        report(f, plan, ringEvents, started, load, jmhQueues, jmhLossless, disk);
        if (json != null) {
            writeJson(json, f, plan, ringEvents, started, load, jmhQueues, jmhLossless, disk);
            System.out.println("dprof bench: wrote " + json);
        }
        if (!jmhLossless || !disk.complete()) {
            System.out.println();
            System.out.println("!!! dprof bench probe FAILED: events were lost or could not be accounted for."
                    + " The figures above do not describe a lossless run. See the queue lines above.");
            return 1;
        }
        return 0;
    }

    private static Map<String, RunResult> runJmh(Path agentJar, Path yaml, Path out, Plan plan) throws RunnerException {
        Options opts = new OptionsBuilder()
                .include(ProbeBench.class.getName() + "\\.(" + String.join("|", BENCHMARKS) + ")$")
                .forks(plan.forks())
                .warmupIterations(plan.warmupIterations())
                .warmupTime(TimeValue.milliseconds(plan.warmupMs()))
                .measurementIterations(plan.iterations())
                .measurementTime(TimeValue.milliseconds(plan.iterationMs()))
                // Handoffs off: the figure is a region probe's, and with them on (the default) a
                // thread's start alone records events, which ProbeBench's check of plain() took for weaving.
                .jvmArgsAppend(ProbeConfig.javaagent(agentJar, yaml, out) + ",handoffs=off")
                .addProfiler(GCProfiler.class)
                .shouldFailOnError(true)
                .verbosity(VerboseMode.NORMAL)
                .build();
        Collection<RunResult> runs = new Runner(opts).run();
        Map<String, RunResult> byName = new LinkedHashMap<>();
        for (RunResult r : runs) {
            String full = r.getParams().getBenchmark();
            byName.put(full.substring(full.lastIndexOf('.') + 1), r);
        }
        for (String b : BENCHMARKS) {
            if (!byName.containsKey(b)) {
                throw new IllegalStateException("JMH returned no result for " + b);
            }
        }
        return byName;
    }

    /** A figure with its error (half-width of JMH's 99.9% interval, combined in quadrature). */
    record Value(double value, double error) {
        static Value of(Result r) {
            return new Value(r.getScore(), r.getScoreError());
        }

        Value minus(Value o) {
            return new Value(value - o.value, Math.hypot(error, o.error));
        }

        Value div(double d) {
            return new Value(value / d, error / d);
        }

        String ns() {
            return String.format(Locale.ROOT, "%.2f ± %.2f ns", value, error);
        }
    }

    /** The five figures and what they were computed from. */
    record Figures(Map<String, Value> nsPerOp, Map<String, Double> medianNsPerOp, Map<String, Double> allocPerOp,
                   Value probe, Value limit, Value jfr, Value jniCall, Value nanoTimeStore,
                   double bytesPerEvent, double allocPerEvent) {
        static Figures of(Map<String, RunResult> results, DiskRun.Result disk) {
            Map<String, Value> ns = new LinkedHashMap<>();
            Map<String, Double> median = new LinkedHashMap<>();
            Map<String, Double> alloc = new LinkedHashMap<>();
            for (String b : BENCHMARKS) {
                ns.put(b, Value.of(results.get(b).getPrimaryResult()));
                median.put(b, results.get(b).getPrimaryResult().getStatistics().getPercentile(50));
                alloc.put(b, allocPerOp(results.get(b)));
            }
            Value plain = ns.get("plain");
            return new Figures(ns, median, alloc,
                    ns.get("instrumented").minus(plain).div(2),
                    ns.get("limit").minus(plain).div(2),
                    ns.get("jfr").minus(plain),
                    ns.get("jni").minus(plain).div(2),
                    ns.get("nanoTime").minus(plain).div(2),
                    disk.bytesPerEvent(),
                    alloc.get("instrumented") / 2);
        }

        /** JMH reports gc.alloc.rate.norm only when something was allocated at all. */
        private static double allocPerOp(RunResult r) {
            Result norm = r.getSecondaryResults().get("gc.alloc.rate.norm");
            return norm == null ? 0 : norm.getScore();
        }

        /** The figure from the medians of the measured iterations: robust to a few disturbed ones. */
        double medianDiff(String a, String b, double div) {
            return (medianNsPerOp.get(a) - medianNsPerOp.get(b)) / div;
        }

        boolean probeVsLimit() {
            return probe.value <= PROBE_VS_LIMIT * limit.value;
        }

        boolean probeVsJfr() {
            return probe.value <= PROBE_VS_JFR * jfr.value;
        }

        boolean bytes() {
            return bytesPerEvent <= MAX_BYTES_PER_EVENT;
        }

        boolean alloc() {
            return allocPerEvent <= MAX_ALLOC_PER_EVENT;
        }
    }

    private static void report(Figures f, Plan plan, int ringEvents, OffsetDateTime started, String load, List<QueueTally> jmhQueues,
                               boolean jmhLossless, DiskRun.Result disk) {
        System.out.println();
        System.out.println("dprof bench probe — " + started + ", " + Machine.describe());
        System.out.println("load average (1, 5, 15 min): " + load + "; " + Machine.NOTE);
        System.out.printf(Locale.ROOT, "JMH %s: %d fork(s) per benchmark, %d × %d ms warm-up, %d × %d ms measured, agent in every fork%n",
                Machine.jmhVersion(), plan.forks(), plan.warmupIterations(), plan.warmupMs(), plan.iterations(), plan.iterationMs());
        System.out.printf(Locale.ROOT, "agent: ringEvents %d (%d MiB per thread), drainIntervalMs %d%n",
                ringEvents, ringEvents * 32L >> 20, ProbeConfig.DRAIN_INTERVAL_MS);
        System.out.println();
        System.out.printf(Locale.ROOT, "  %-14s %22s %14s %14s%n", "benchmark", "ns/op (99.9%)", "median ns/op", "alloc B/op");
        for (String b : BENCHMARKS) {
            System.out.printf(Locale.ROOT, "  %-14s %22s %14.2f %14.4f%n", b, f.nsPerOp().get(b).ns(),
                    f.medianNsPerOp().get(b), f.allocPerOp().get(b));
        }
        System.out.println();
        System.out.println("  queues of the JMH forks (read back):");
        for (QueueTally q : jmhQueues) {
            System.out.println("    " + (q.lossless() ? "ok   " : "LOST ") + q);
        }
        if (jmhQueues.size() != plan.forks() * BENCHMARKS.length) {
            System.out.println("    LOST expected " + plan.forks() * BENCHMARKS.length + " queues, found " + jmhQueues.size());
        }
        System.out.println("  queue of the disk run: " + (disk.complete() ? "ok   " : "LOST ") + disk.queue()
                + "; " + disk.regionEvents() + " region events of " + 2 * disk.calls() + " expected");
        System.out.println();
        System.out.printf(Locale.ROOT, "  %-20s %-22s %-34s %s%n", "figure", "measured", "target", "");
        System.out.printf(Locale.ROOT, "  %-20s %-22s %-34s %s%n", "probeNs", f.probe().ns(),
                String.format(Locale.ROOT, "≤ %.1f × limitNs = %.2f ns", PROBE_VS_LIMIT, PROBE_VS_LIMIT * f.limit().value()),
                verdict(f.probeVsLimit()) + String.format(Locale.ROOT, " (%.2f × limitNs)", f.probe().value() / f.limit().value()));
        System.out.printf(Locale.ROOT, "  %-20s %-22s %-34s %s%n", "", "",
                String.format(Locale.ROOT, "≤ %.1f × jfrNs = %.2f ns", PROBE_VS_JFR, PROBE_VS_JFR * f.jfr().value()),
                verdict(f.probeVsJfr()) + String.format(Locale.ROOT, " (%.2f × jfrNs)", f.probe().value() / f.jfr().value()));
        System.out.printf(Locale.ROOT, "  %-20s %-22s%n", "limitNs", f.limit().ns());
        System.out.printf(Locale.ROOT, "  %-20s %-22s%n", "jfrNs", f.jfr().ns());
        System.out.printf(Locale.ROOT, "  %-20s %-22s %s%n", "(jni call)", f.jniCall().ns(), "context: an empty JNI call, per call");
        System.out.printf(Locale.ROOT, "  %-20s %-22s %s%n", "(nanoTime+store)", f.nanoTimeStore().ns(),
                "context: limit with System.nanoTime, no JNI, per event");
        System.out.printf(Locale.ROOT, "  %-20s %-22s %-34s %s%n", "bytesPerEvent",
                String.format(Locale.ROOT, "%.3f B", f.bytesPerEvent()),
                String.format(Locale.ROOT, "≤ %.0f B", MAX_BYTES_PER_EVENT), verdict(f.bytes()));
        System.out.printf(Locale.ROOT, "  %-20s %-22s %-34s %s%n", "allocBytesPerEvent",
                String.format(Locale.ROOT, "%.4f B", f.allocPerEvent()),
                String.format(Locale.ROOT, "0 (≤ %.2f B, JMH noise)", MAX_ALLOC_PER_EVENT), verdict(f.alloc()));
        System.out.printf(Locale.ROOT, "  (from the medians of the iterations: probeNs %.2f, limitNs %.2f, jfrNs %.2f ns)%n",
                f.medianDiff("instrumented", "plain", 2), f.medianDiff("limit", "plain", 2), f.medianDiff("jfr", "plain", 1));
        System.out.printf(Locale.ROOT, "  (disk: %d bytes allocated, %d apparent, for %d events read back)%n",
                disk.allocatedBytes(), disk.apparentBytes(), disk.events());
        System.out.printf(Locale.ROOT, "  (disk run heap: main thread %d B over %d calls; drainer thread %d B over %d batches;"
                        + " %.1f ns per call with warm-up)%n",
                disk.mainAllocBytes(), disk.calls(), disk.drainerAllocBytes(), disk.batches(),
                (double) disk.loopNs() / disk.calls());
        if (!jmhLossless) {
            System.out.println("  !!! a JMH fork lost events or did not end cleanly: its timing includes dropped probes");
        }
    }

    private static String verdict(boolean pass) {
        return pass ? "PASS" : "FAIL";
    }

    private static void writeJson(Path file, Figures f, Plan plan, int ringEvents, OffsetDateTime started, String load, List<QueueTally> jmhQueues,
                                  boolean jmhLossless, DiskRun.Result disk) throws IOException {
        ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        ObjectNode root = mapper.createObjectNode();
        root.put("probeNs", f.probe().value());
        root.put("limitNs", f.limit().value());
        root.put("jfrNs", f.jfr().value());
        root.put("bytesPerEvent", f.bytesPerEvent());
        root.put("allocBytesPerEvent", f.allocPerEvent());
        root.put("valid", jmhLossless && disk.complete());

        ObjectNode errors = root.putObject("errorsNs");
        errors.put("note", "half-widths of JMH's 99.9% intervals, combined in quadrature");
        errors.put("probeNs", f.probe().error());
        errors.put("limitNs", f.limit().error());
        errors.put("jfrNs", f.jfr().error());

        ObjectNode parts = root.putObject("context");
        parts.put("jniCallNs", f.jniCall().value());
        parts.put("jniCallErrorNs", f.jniCall().error());
        parts.put("nanoTimeStoreNs", f.nanoTimeStore().value());
        parts.put("nanoTimeStoreErrorNs", f.nanoTimeStore().error());
        parts.put("probeNsFromMedians", f.medianDiff("instrumented", "plain", 2));
        parts.put("limitNsFromMedians", f.medianDiff("limit", "plain", 2));
        parts.put("jfrNsFromMedians", f.medianDiff("jfr", "plain", 1));
        parts.put("note", "*FromMedians: the same differences over the medians of the measured iterations (all forks),"
                + " less sensitive to iterations disturbed by other load on the machine; "
                + "jniCallNs = (jni - plain)/2: one empty JNI call; nanoTimeStoreNs = (nanoTime - plain)/2:"
                + " the limit with System.nanoTime() instead of the JNI rdtsc");

        ObjectNode targets = root.putObject("targets");
        target(targets, "probeNs <= 1.3 * limitNs", f.probe().value() / f.limit().value(), PROBE_VS_LIMIT, f.probeVsLimit());
        target(targets, "probeNs <= 0.2 * jfrNs", f.probe().value() / f.jfr().value(), PROBE_VS_JFR, f.probeVsJfr());
        target(targets, "bytesPerEvent <= 12", f.bytesPerEvent(), MAX_BYTES_PER_EVENT, f.bytes());
        target(targets, "allocBytesPerEvent = 0 (<= 0.01)", f.allocPerEvent(), MAX_ALLOC_PER_EVENT, f.alloc());

        ObjectNode benchmarks = root.putObject("benchmarks");
        for (String b : BENCHMARKS) {
            ObjectNode n = benchmarks.putObject(b);
            n.put("nsPerOp", f.nsPerOp().get(b).value());
            n.put("errorNs", f.nsPerOp().get(b).error());
            n.put("medianNsPerOp", f.medianNsPerOp().get(b));
            n.put("allocBytesPerOp", f.allocPerOp().get(b));
        }
        benchmarks.put("definitions", "plain: empty out-of-line static method; instrumented: the same, woven as a"
                + " plain region (ENTER+EXIT); limit: the same with two (JNI rdtsc + tick/header store into a long[]"
                + " ring in hand); jfr: the same with one JFR event begin/commit (recording on, threshold 0, no stack"
                + " traces); jni: the same with two empty JNI calls; nanoTime: limit with System.nanoTime()."
                + " probeNs = (instrumented - plain)/2, limitNs = (limit - plain)/2, jfrNs = jfr - plain.");

        ObjectNode ctx = root.putObject("machine");
        ctx.put("date", started.toString());
        ctx.put("command", "./dprof bench probe" + (file == null ? "" : " --json " + file));
        ctx.put("jdk", Runtime.version().toString());
        ctx.put("vm", System.getProperty("java.vm.name") + " " + System.getProperty("java.vm.version"));
        ctx.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " " + System.getProperty("os.arch"));
        ctx.put("cpus", Runtime.getRuntime().availableProcessors());
        ctx.put("cpuModel", Machine.cpuModel());
        ctx.put("note", Machine.NOTE);
        ctx.put("loadAverage", load);
        ctx.put("jmh", Machine.jmhVersion());
        ctx.put("forks", plan.forks());
        ctx.put("warmup", plan.warmupIterations() + " x " + plan.warmupMs() + " ms");
        ctx.put("measurement", plan.iterations() + " x " + plan.iterationMs() + " ms");
        ctx.put("ringEvents", ringEvents);
        ctx.put("drainIntervalMs", ProbeConfig.DRAIN_INTERVAL_MS);
        ctx.put("limitRingEvents", ProbeTargets.LIMIT_EVENTS);

        ObjectNode q = root.putObject("queues");
        ObjectNode jmh = q.putObject("jmhForks");
        jmh.put("lossless", jmhLossless);
        jmh.put("processes", jmhQueues.size());
        jmh.put("events", jmhQueues.stream().mapToLong(t -> t.events).sum());
        jmh.put("lostEvents", jmhQueues.stream().mapToLong(t -> t.lostEvents).sum());
        jmh.put("allEnded", jmhQueues.stream().allMatch(t -> t.ended));
        ObjectNode d = q.putObject("diskRun");
        d.put("calls", disk.calls());
        d.put("eventsReadBack", disk.events());
        d.put("regionEvents", disk.regionEvents());
        d.put("lostEvents", disk.lostEvents());
        d.put("complete", disk.complete());
        d.put("allocatedBytes", disk.allocatedBytes());
        d.put("apparentBytes", disk.apparentBytes());
        d.put("batches", disk.batches());
        d.put("method", "du -s -B1 on the queue directory after fsync, divided by every event read back");
        d.put("loopNsPerCall", (double) disk.loopNs() / disk.calls());
        d.put("mainThreadAllocBytes", disk.mainAllocBytes());
        d.put("drainerThreadAllocBytes", disk.drainerAllocBytes());

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

    static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> all = Files.walk(root)) {
            all.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.delete(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }
}
