package dev.dprof.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.dprof.consolidator.read.RunDirs;
import dev.dprof.settings.DprofSettings;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.function.ToDoubleFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code dprof bench overhead [--app kmeans] [--runs 5] [--json FILE] …}: what the agent costs a
 * real distributed application. The same cluster of the bundled example (by default K-Means,
 * 4 workers × 2 threads, the example's own YAML — the demo's region granularity) runs with and
 * without {@code -javaagent:dprof.jar}, alternating (with, without, with, …) so that a change of
 * the machine's load hits both alike, {@code --runs} times each after {@code --warmup} untimed
 * pairs. The figure of a run is the longest iteration span over its ranks (each worker prints
 * {@code APP: rank R span S s}, measured inside the program after a cluster-wide barrier, so JVM
 * start-up and the agent's own start are excluded).
 *
 * <p>Reported: {@code slowdown = median(with) / median(without) − 1} (target ≤ 1%), the IQR of
 * each side, the median of the paired ratios (run i with / run i without), and a 95% bootstrap
 * interval of the slowdown (both sides resampled independently, fixed seed) — the honest answer
 * to "is the slowdown within the noise". Every run with the agent is read back: a process that
 * lost an event or wrote no end record fails the benchmark.
 */
final class OverheadCommand {
    static final Map<String, String> YAML = Map.of(
            "kmeans", "examples/kmeans/dprof-distributed.yaml",
            "pagerank", "examples/pagerank/dprof.yaml",
            "cc", "examples/cc/dprof.yaml",
            "service", "examples/service/dprof.yaml");
    static final double TARGET = 0.01;
    static final int BOOTSTRAP = 20_000;
    private static final Pattern CLUSTER_LINE =
            Pattern.compile("^cluster: rank (\\d+) exit (-?\\d+) span (\\S+)(?: s)?$");
    private static final Pattern AGENT_LINE = Pattern.compile("^\\[rank \\d+\\] dprof: recording .*");
    /** A worker's CPU line, as the launcher echoes it ({@code dev.dprof.examples.worker.SpanClock}). */
    static final Pattern CPU_LINE =
            Pattern.compile("^\\[rank (\\d+)\\] \\S+: rank \\d+ cpu (\\d+(?:\\.\\d+)?) s(?: jit (\\d+(?:\\.\\d+)?|NaN) s)?$");
    /** A worker's laps (iterations) in ms, as the launcher echoes them ({@code dev.dprof.examples.worker.Outcome}). */
    static final Pattern LAPS_LINE = Pattern.compile("^\\[rank (\\d+)\\] \\S+: rank \\d+ laps ms((?: \\d+(?:\\.\\d+)?)+)$");
    /** The iterations counted as the first: where the JIT compiles the application's loop. */
    static final int FIRST_LAPS = 2;

    /** The command line. */
    record Plan(String app, int runs, int warmup, int workers, int threads, Integer iterations, List<String> appArgs,
                String agentArgs, List<String> jvmArgs, Path json, boolean keep) {
    }

    /**
     * One cluster run: its spans by rank, the longest, the CPU and JIT compilation time all workers'
     * processes spent in their spans (NaN if a worker did not say), the seconds of the first
     * {@value #FIRST_LAPS} iterations and of the others (each iteration's longest over the ranks;
     * NaN if the workers do not report laps), and (with the agent) the events it recorded.
     */
    record Run(int index, boolean agent, double[] spans, double maxSpan, double cpu, double jit, double firstLaps,
               double laterLaps, long events, String load) {
    }

    private OverheadCommand() {
    }

    static int run(List<String> args) throws Exception {
        String app = "kmeans";
        int runs = 5;
        int warmup = 1;
        int workers = 4;
        int threads = 2;
        Integer iterations = null;
        Path json = null;
        Path config = null;
        String agentArgs = "";
        List<String> jvmArgs = new ArrayList<>();
        boolean keep = false;
        List<String> appArgs = new ArrayList<>();
        try {
            for (int i = 0; i < args.size(); i++) {
                String a = args.get(i);
                if (a.equals("--")) {
                    appArgs.addAll(args.subList(i + 1, args.size()));
                    break;
                }
                if (a.equals("--keep")) {
                    keep = true;
                    continue;
                }
                if (i + 1 == args.size()) {
                    return BenchMain.usage(a + " needs a value");
                }
                String v = args.get(++i);
                switch (a) {
                    case "--app" -> app = v;
                    case "--runs" -> runs = Integer.parseInt(v);
                    case "--warmup" -> warmup = Integer.parseInt(v);
                    case "--workers" -> workers = Integer.parseInt(v);
                    case "--threads" -> threads = Integer.parseInt(v);
                    case "--iterations" -> iterations = Integer.parseInt(v);
                    case "--json" -> json = Path.of(v);
                    case "--config" -> config = Path.of(v).toAbsolutePath();
                    case "--agent-args" -> agentArgs = "," + v;
                    case "--jvm-arg" -> jvmArgs.add(v);
                    default -> {
                        return BenchMain.usage("unknown argument to overhead: " + a);
                    }
                }
            }
        } catch (NumberFormatException e) {
            return BenchMain.usage("overhead: not a number: " + e.getMessage());
        }
        if (!YAML.containsKey(app)) {
            return BenchMain.usage("overhead: unknown app '" + app + "' (expected one of "
                    + String.join(", ", YAML.keySet().stream().sorted().toList()) + ")");
        }
        if (runs < 1 || warmup < 0 || workers < 1 || threads < 1) {
            return BenchMain.usage("overhead: --runs, --workers and --threads must be at least 1, --warmup at least 0");
        }
        Path jar = BenchMain.agentJar();
        if (jar == null) {
            return 1;
        }
        Optional<Path> home = DprofSettings.home();
        if (home.isEmpty()) {
            System.err.println("dprof bench: " + DprofSettings.HOME_PROPERTY + " is not set; run through ./dprof bench");
            return 1;
        }
        Path examples = home.get().resolve("examples/target/dprof-examples.jar");
        Path yaml = config != null ? config : home.get().resolve(YAML.get(app));
        for (Path p : List.of(examples, yaml)) {
            if (!Files.isRegularFile(p)) {
                System.err.println("dprof bench: " + p + " is missing; build with"
                        + " mvn -B -Dmaven.test.skip=true install");
                return 1;
            }
        }
        Plan plan = new Plan(app, runs, warmup, workers, threads, iterations, List.copyOf(appArgs), agentArgs,
                List.copyOf(jvmArgs), json, keep);
        Path work = Files.createTempDirectory("dprof-overhead-");
        try {
            return measure(plan, jar, examples, yaml, work);
        } finally {
            if (keep) {
                System.out.println("dprof bench: kept " + work);
            } else {
                deleteTree(work);
            }
        }
    }

    private static int measure(Plan plan, Path agentJar, Path examples, Path yaml, Path work) throws Exception {
        OffsetDateTime started = OffsetDateTime.now().truncatedTo(ChronoUnit.SECONDS);
        String loadBefore = Machine.loadAverage();
        System.out.printf(Locale.ROOT, "dprof bench overhead: %s, %d workers × %d threads, config %s;"
                        + " %d warm-up pair(s), then %d runs with and %d without the agent, alternating%n",
                plan.app(), plan.workers(), plan.threads(), yaml, plan.warmup(), plan.runs(), plan.runs());
        System.out.println("dprof bench overhead: " + Machine.describe() + "; load average " + loadBefore);
        for (int w = 0; w < plan.warmup(); w++) {
            Run with = cluster(plan, agentJar, examples, yaml, work, -1 - w, true);
            Run without = cluster(plan, agentJar, examples, yaml, work, -1 - w, false);
            System.out.printf(Locale.ROOT, "warm-up %d: with %.3f s, without %.3f s (not counted)%n", w + 1,
                    with.maxSpan(), without.maxSpan());
        }
        List<Run> with = new ArrayList<>();
        List<Run> without = new ArrayList<>();
        for (int i = 0; i < plan.runs(); i++) {
            with.add(cluster(plan, agentJar, examples, yaml, work, i, true));
            without.add(cluster(plan, agentJar, examples, yaml, work, i, false));
            System.out.printf(Locale.ROOT, "run %d: with %.3f s (%d events, cpu %.2f s, jit %.2f s), without %.3f s"
                            + " (cpu %.2f s, jit %.2f s); load %s%n", i + 1, with.get(i).maxSpan(),
                    with.get(i).events(), with.get(i).cpu(), with.get(i).jit(), without.get(i).maxSpan(),
                    without.get(i).cpu(), without.get(i).jit(), without.get(i).load());
        }
        String loadAfter = Machine.loadAverage();

        double[] w = with.stream().mapToDouble(Run::maxSpan).toArray();
        double[] wo = without.stream().mapToDouble(Run::maxSpan).toArray();
        double medianWith = quantile(w, 0.5);
        double medianWithout = quantile(wo, 0.5);
        double slowdown = medianWith / medianWithout - 1;
        double iqrWith = quantile(w, 0.75) - quantile(w, 0.25);
        double iqrWithout = quantile(wo, 0.75) - quantile(wo, 0.25);
        double[] ratios = ratios(w, wo);
        double paired = quantile(ratios, 0.5) - 1;
        int slower = (int) Arrays.stream(ratios).filter(r -> r > 1).count();
        int faster = (int) Arrays.stream(ratios).filter(r -> r < 1).count();
        double signP = signTest(slower, faster);
        double[] ci = bootstrap(w, wo);
        String verdict = verdict(ci, slower, faster, signP);

        System.out.println();
        System.out.printf(Locale.ROOT, "span (longest rank), s     median    IQR       IQR/median  min       max%n");
        System.out.printf(Locale.ROOT, "with the agent             %-9.4f %-9.4f %-11s %-9.4f %-9.4f%n", medianWith,
                iqrWith, percent(iqrWith / medianWith), min(w), max(w));
        System.out.printf(Locale.ROOT, "without                    %-9.4f %-9.4f %-11s %-9.4f %-9.4f%n", medianWithout,
                iqrWithout, percent(iqrWithout / medianWithout), min(wo), max(wo));
        System.out.printf(Locale.ROOT, "slowdown = median(with)/median(without) − 1 = %s (target ≤ %s);"
                        + " median of paired ratios − 1 = %s; 95%% bootstrap interval [%s, %s]%n",
                percent(slowdown), percent(TARGET), percent(paired), percent(ci[0]), percent(ci[1]));
        System.out.printf(Locale.ROOT, "pairs (run i with vs run i without): with slower in %d, faster in %d of %d;"
                + " two-sided sign test p = %.2g%n", slower, faster, ratios.length, signP);
        System.out.println(verdict);
        double cpuSlowdown = medianSlowdown(with, without, Run::cpu);
        if (!Double.isNaN(cpuSlowdown)) {
            double[] cw = with.stream().mapToDouble(Run::cpu).toArray();
            double[] cwo = without.stream().mapToDouble(Run::cpu).toArray();
            double cpuPaired = quantile(ratios(cw, cwo), 0.5) - 1;
            double[] cpuCi = bootstrap(cw, cwo);
            System.out.printf(Locale.ROOT, "CPU time of all workers' processes within their spans (what the agent adds"
                            + " to the machine's work): median %.3f s with, %.3f s without: %s; paired %s;"
                            + " 95%% bootstrap interval [%s, %s]%n", quantile(cw, 0.5), quantile(cwo, 0.5),
                    percent(cpuSlowdown), percent(cpuPaired), percent(cpuCi[0]), percent(cpuCi[1]));
            System.out.printf(Locale.ROOT, "of which JIT compilation (summed over the workers): median %.3f s with,"
                            + " %.3f s without%n", quantile(with.stream().mapToDouble(Run::jit).toArray(), 0.5),
                    quantile(without.stream().mapToDouble(Run::jit).toArray(), 0.5));
        }
        double laterSlowdown = medianSlowdown(with, without, Run::laterLaps);
        if (!Double.isNaN(laterSlowdown)) {
            double firstWith = median(with, Run::firstLaps);
            double firstWithout = median(without, Run::firstLaps);
            System.out.printf(Locale.ROOT, "iterations (each the slowest rank's): the first %d median %.3f s with,"
                            + " %.3f s without (%+.1f ms); the others median %.3f s with, %.3f s without: %s%n",
                    FIRST_LAPS, firstWith, firstWithout, 1e3 * (firstWith - firstWithout),
                    median(with, Run::laterLaps), median(without, Run::laterLaps), percent(laterSlowdown));
        }
        System.out.println("load average before " + loadBefore + ", after " + loadAfter);

        if (plan.json() != null) {
            writeJson(plan, yaml, started, loadBefore, loadAfter, with, without, medianWith, medianWithout, slowdown,
                    iqrWith, iqrWithout, paired, ci, verdict, slower, faster, signP);
            System.out.println("dprof bench overhead: wrote " + plan.json());
        }
        return 0;
    }

    /** How often a cluster that lost a port race (the examples' Cluster.freePorts) is started again. */
    static final int PORT_RETRIES = 3;

    /**
     * One cluster run; started again when a worker could not bind its port (the launcher picks free
     * ports and releases them before the workers bind, so on a busy machine another process can
     * take one in between).
     */
    private static Run cluster(Plan plan, Path agentJar, Path examples, Path yaml, Path work, int index, boolean agent)
            throws IOException, InterruptedException, dev.dprof.consolidator.read.ReadException {
        for (int attempt = 1; ; attempt++) {
            try {
                return clusterOnce(plan, agentJar, examples, yaml, work, index, agent);
            } catch (PortTaken e) {
                if (attempt == PORT_RETRIES) {
                    throw new IOException(e.getMessage());
                }
                System.out.println("dprof bench overhead: a worker's port was taken by another process; starting"
                        + " the run again");
            }
        }
    }

    /** A worker said "Address already in use". */
    private static final class PortTaken extends IOException {
        private static final long serialVersionUID = 1L;

        PortTaken(String message) {
            super(message);
        }
    }

    /** Starts one cluster through the examples' launcher and waits for it; fails unless every rank ended well. */
    private static Run clusterOnce(Plan plan, Path agentJar, Path examples, Path yaml, Path work, int index,
                                   boolean agent)
            throws IOException, InterruptedException, dev.dprof.consolidator.read.ReadException {
        String name = (index < 0 ? "warmup" + (-index) : "run" + (index + 1)) + (agent ? "-with" : "-without");
        Path runs = work.resolve(name);
        Path log = work.resolve(name + ".log");
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", examples.toString(), "dev.dprof.examples.Cluster", plan.app(),
                "--workers", Integer.toString(plan.workers()), "--threads", Integer.toString(plan.threads()),
                "--timeout-s", "600"));
        if (plan.iterations() != null) {
            command.addAll(List.of("--iterations", plan.iterations().toString()));
        }
        for (String arg : plan.jvmArgs()) {
            command.addAll(List.of("--jvm-arg", arg));
        }
        if (agent) {
            command.addAll(List.of("--jvm-arg", "-javaagent:" + agentJar + "=config=" + yaml + ",out=" + runs
                    + plan.agentArgs()));
        }
        if (!plan.appArgs().isEmpty()) {
            command.add("--");
            command.addAll(plan.appArgs());
        }
        Process p = new ProcessBuilder(command).directory(work.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        int rc = p.waitFor();
        List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
        double[] spans = new double[plan.workers()];
        Arrays.fill(spans, Double.NaN);
        int agents = 0;
        double[] cpus = new double[plan.workers()];
        double[] jits = new double[plan.workers()];
        Arrays.fill(cpus, Double.NaN);
        Arrays.fill(jits, Double.NaN);
        double[][] laps = new double[plan.workers()][];
        for (String line : lines) {
            Matcher lap = LAPS_LINE.matcher(line);
            if (lap.matches() && Integer.parseInt(lap.group(1)) < laps.length) {
                laps[Integer.parseInt(lap.group(1))] = Arrays.stream(lap.group(2).trim().split(" +"))
                        .mapToDouble(ms -> Double.parseDouble(ms) / 1e3).toArray();
            }
            Matcher cpu = CPU_LINE.matcher(line);
            if (cpu.matches() && Integer.parseInt(cpu.group(1)) < cpus.length) {
                cpus[Integer.parseInt(cpu.group(1))] = Double.parseDouble(cpu.group(2));
                if (cpu.group(3) != null) {
                    jits[Integer.parseInt(cpu.group(1))] = Double.parseDouble(cpu.group(3));
                }
            }
            Matcher m = CLUSTER_LINE.matcher(line);
            if (m.matches()) {
                int rank = Integer.parseInt(m.group(1));
                if (Integer.parseInt(m.group(2)) == 0 && !m.group(3).equals("-") && rank < spans.length) {
                    spans[rank] = Double.parseDouble(m.group(3));
                }
            } else if (AGENT_LINE.matcher(line).matches()) {
                agents++;
            }
        }
        String problem = null;
        if (rc != 0 || Arrays.stream(spans).anyMatch(Double::isNaN)) {
            problem = "the cluster failed (exit " + rc + ", spans " + Arrays.toString(spans) + ")";
        } else if (agents != (agent ? plan.workers() : 0)) {
            problem = (agent ? "expected every worker to record" : "expected no agent") + ", but " + agents
                    + " worker(s) said 'dprof: recording'";
        }
        long events = 0;
        if (problem == null && agent) {
            List<Path> queues = RunDirs.expand(List.of(runs));
            if (queues.size() != plan.workers()) {
                problem = "expected " + plan.workers() + " process queues under " + runs + ", found " + queues.size();
            }
            for (Path q : queues) {
                QueueTally t = QueueTally.read(q, false);
                if (!t.lossless()) {
                    problem = "a worker lost events or ended abnormally: " + t;
                }
                events += t.events;
            }
        }
        if (problem != null && lines.stream().anyMatch(l -> l.contains("Address already in use"))) {
            deleteTree(runs);
            throw new PortTaken(name + ": " + problem + " (a port was taken)");
        }
        if (problem != null) {
            throw new IOException(name + ": " + problem + "\n$ " + String.join(" ", command) + "\n"
                    + String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size())));
        }
        if (!plan.keep()) {
            deleteTree(runs);
            Files.deleteIfExists(log);
        }
        double[] slowestLaps = slowestLaps(laps);
        return new Run(index, agent, spans, Arrays.stream(spans).max().orElseThrow(), Arrays.stream(cpus).sum(),
                Arrays.stream(jits).sum(), sum(slowestLaps, 0, FIRST_LAPS), sum(slowestLaps, FIRST_LAPS,
                slowestLaps.length), events, Machine.loadAverage());
    }

    /**
     * Each iteration's longest lap over the ranks (they run in step: every iteration ends in a
     * cluster-wide all-reduce); empty unless every rank reported the same number of laps.
     */
    static double[] slowestLaps(double[][] byRank) {
        if (byRank.length == 0 || Arrays.stream(byRank).anyMatch(l -> l == null || l.length != byRank[0].length)) {
            return new double[0];
        }
        double[] slowest = new double[byRank[0].length];
        for (double[] rank : byRank) {
            for (int i = 0; i < slowest.length; i++) {
                slowest[i] = Math.max(slowest[i], rank[i]);
            }
        }
        return slowest;
    }

    /** The sum of {@code v[from..to)}; NaN unless {@code v} holds more than {@link #FIRST_LAPS} laps. */
    private static double sum(double[] v, int from, int to) {
        return v.length <= FIRST_LAPS ? Double.NaN : Arrays.stream(v, from, to).sum();
    }

    /** {@code median(with)/median(without) − 1} of a figure of the runs; NaN if a run lacks it. */
    static double medianSlowdown(List<Run> with, List<Run> without, ToDoubleFunction<Run> figure) {
        double[] w = with.stream().mapToDouble(figure).toArray();
        double[] wo = without.stream().mapToDouble(figure).toArray();
        if (Arrays.stream(w).anyMatch(Double::isNaN) || Arrays.stream(wo).anyMatch(Double::isNaN)) {
            return Double.NaN;
        }
        return quantile(w, 0.5) / quantile(wo, 0.5) - 1;
    }

    private static double median(List<Run> runs, ToDoubleFunction<Run> figure) {
        return quantile(runs.stream().mapToDouble(figure).toArray(), 0.5);
    }

    /** Run i with the agent over run i without it. */
    private static double[] ratios(double[] with, double[] without) {
        double[] r = new double[with.length];
        for (int i = 0; i < with.length; i++) {
            r[i] = with[i] / without[i];
        }
        return r;
    }

    /** A figure of every run, as arrays {@code NAMEWithSec} and {@code NAMEWithoutSec}. */
    private static void putPerRun(ObjectNode node, String name, List<Run> with, List<Run> without,
                                  ToDoubleFunction<Run> figure) {
        ArrayNode withArray = node.putArray(name + "WithSec");
        with.forEach(r -> withArray.add(figure.applyAsDouble(r)));
        ArrayNode withoutArray = node.putArray(name + "WithoutSec");
        without.forEach(r -> withoutArray.add(figure.applyAsDouble(r)));
    }

    /** The {@code q}-quantile with linear interpolation between order statistics (R type 7). */
    static double quantile(double[] values, double q) {
        double[] s = values.clone();
        Arrays.sort(s);
        double h = (s.length - 1) * q;
        int lo = (int) Math.floor(h);
        int hi = (int) Math.ceil(h);
        return s[lo] + (h - lo) * (s[hi] - s[lo]);
    }

    /**
     * A 95% percentile-bootstrap interval of {@code median(with)/median(without) − 1}, resampling
     * each side with replacement ({@value #BOOTSTRAP} times, fixed seed: the same data give the
     * same interval).
     */
    static double[] bootstrap(double[] with, double[] without) {
        SplittableRandom random = new SplittableRandom(0x0DDBA11L);
        double[] slowdowns = new double[BOOTSTRAP];
        double[] a = new double[with.length];
        double[] b = new double[without.length];
        for (int i = 0; i < BOOTSTRAP; i++) {
            for (int j = 0; j < a.length; j++) {
                a[j] = with[random.nextInt(with.length)];
            }
            for (int j = 0; j < b.length; j++) {
                b[j] = without[random.nextInt(without.length)];
            }
            slowdowns[i] = quantile(a, 0.5) / quantile(b, 0.5) - 1;
        }
        return new double[] {quantile(slowdowns, 0.025), quantile(slowdowns, 0.975)};
    }

    /**
     * Two-sided exact sign test: the probability, were with and without alike (each pair equally
     * likely either way), of a split at least as uneven as {@code slower} : {@code faster}; ties
     * are left out.
     */
    static double signTest(int slower, int faster) {
        int n = slower + faster;
        if (n == 0) {
            return 1;
        }
        int k = Math.min(slower, faster);
        double tail = 0;
        double binomial = 1;
        for (int i = 0; i <= k; i++) {
            if (i > 0) {
                binomial = binomial * (n - i + 1) / i;
            }
            tail += binomial;
        }
        return Math.min(1, 2 * tail / Math.pow(2, n));
    }

    static String verdict(double[] ci, int slower, int faster, double signP) {
        boolean pairedSlower = signP < 0.05 && slower > faster;
        String zero = ci[0] > 0 || pairedSlower
                ? "the agent's cost is measurable (" + (ci[0] > 0 ? "the bootstrap interval excludes 0" : "")
                        + (ci[0] > 0 && pairedSlower ? "; " : "")
                        + (pairedSlower ? "slower in " + slower + " of " + (slower + faster) + " pairs" : "") + ")"
                : ci[1] < 0 ? "the runs with the agent were faster (the interval is below 0: noise)"
                : "the slowdown is not distinguishable from 0 (the interval contains it, the pairs split "
                        + slower + ":" + faster + "): within the noise";
        String target = ci[1] <= TARGET ? "target ≤ 1% met at 95%"
                : ci[0] > TARGET ? "target ≤ 1% MISSED at 95%"
                : "target ≤ 1% neither shown nor refuted by the medians: the interval reaches above 1%";
        return "verdict: " + zero + "; " + target + ".";
    }

    private static void writeJson(Plan plan, Path yaml, OffsetDateTime started, String loadBefore, String loadAfter,
                                  List<Run> with, List<Run> without, double medianWith, double medianWithout,
                                  double slowdown, double iqrWith, double iqrWithout, double paired, double[] ci,
                                  String verdict, int slower, int faster, double signP) throws IOException {
        ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        ObjectNode root = mapper.createObjectNode();
        root.put("app", plan.app());
        root.put("runs", plan.runs());
        root.put("medianWithSec", medianWith);
        root.put("medianWithoutSec", medianWithout);
        root.put("slowdown", slowdown);
        root.put("iqrWithSec", iqrWith);
        root.put("iqrWithoutSec", iqrWithout);
        double cpuSlowdown = medianSlowdown(with, without, Run::cpu);
        if (!Double.isNaN(cpuSlowdown)) {
            root.put("cpuSlowdown", cpuSlowdown);
        }
        ObjectNode context = root.putObject("context");
        context.put("workers", plan.workers());
        context.put("threads", plan.threads());
        context.put("warmupPairs", plan.warmup());
        context.put("config", yaml.toString());
        context.put("agentArgs", plan.agentArgs().isEmpty() ? "" : plan.agentArgs().substring(1));
        context.put("jvmArgs", String.join(" ", plan.jvmArgs()));
        context.put("appArgs", String.join(" ", plan.appArgs()));
        context.put("figure", "per run the longest 'APP: rank R span S s' over the ranks (inside the program,"
                + " JVM start-up excluded); runs alternate with, without, with, ...");
        context.put("pairedSlowdown", paired);
        context.put("pairsWithSlower", slower);
        context.put("pairsWithFaster", faster);
        context.put("signTestP", signP);
        ArrayNode interval = context.putArray("slowdownBootstrap95");
        interval.add(ci[0]);
        interval.add(ci[1]);
        context.put("target", TARGET);
        context.put("verdict", verdict);
        putPerRun(context, "spans", with, without, Run::maxSpan);
        putPerRun(context, "cpu", with, without, Run::cpu);
        putPerRun(context, "jit", with, without, Run::jit);
        double laterSlowdown = medianSlowdown(with, without, Run::laterLaps);
        if (!Double.isNaN(laterSlowdown)) {
            context.put("firstLaps", FIRST_LAPS);
            context.put("laterLapsSlowdown", laterSlowdown);
            putPerRun(context, "firstLaps", with, without, Run::firstLaps);
            putPerRun(context, "laterLaps", with, without, Run::laterLaps);
        }
        ArrayNode events = context.putArray("eventsPerRunWith");
        with.forEach(r -> events.add(r.events()));
        context.put("machine", Machine.describe());
        context.put("note", Machine.NOTE);
        context.put("loadBefore", loadBefore);
        context.put("loadAfter", loadAfter);
        context.put("started", started.toString());
        Path parent = plan.json().toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        mapper.writeValue(plan.json().toFile(), root);
    }

    private static String percent(double x) {
        return String.format(Locale.ROOT, "%+.2f%%", 100 * x);
    }

    private static double min(double[] v) {
        return Arrays.stream(v).min().orElse(Double.NaN);
    }

    private static double max(double[] v) {
        return Arrays.stream(v).max().orElse(Double.NaN);
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (java.util.stream.Stream<Path> all = Files.walk(root)) {
            for (Path p : all.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
