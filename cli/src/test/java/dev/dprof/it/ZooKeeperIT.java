package dev.dprof.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.dprof.calibrator.net.CalibrationFiles;
import dev.dprof.calibrator.net.CalibrationServer;
import dev.dprof.calibrator.net.OrderedClock;
import dev.dprof.calibrator.net.SharedKey;
import dev.dprof.cli.DemoStageSwitch;
import dev.dprof.cli.DemoValidation;
import dev.dprof.clock.DomainClock;
import dev.dprof.clock.SimulatedClock;
import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.read.RunDirs;
import dev.dprof.format.EventKind;
import dev.dprof.format.calibration.CalibrationFile;
import dev.dprof.format.profile.ProfileEvent;
import dev.dprof.format.profile.ProfileEventsReader;
import dev.dprof.it.ForkedJvm.Event;
import dev.dprof.it.ForkedJvm.Output;
import dev.dprof.it.ForkedJvm.Recording;
import dev.dprof.it.app.ThreadSchedStats;
import dev.dprof.testsupport.TestSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * dCOZ's what-if (DProf §5.2) checked on an unmodified distributed JVM system: an Apache
 * ZooKeeper 3.9 ensemble of three servers ({@link ZooKeeperEnsemble}) under a fixed write load
 * from a client of its own, every JVM with the agent and its own simulated clock, calibrated
 * against a base in this JVM. Slow runs ({@code zookeeper.forceSync=yes}, ZooKeeper's default)
 * alternate with fast ones ({@code no}, which skips the transaction log's fsync). From each slow
 * run, consolidated with {@code dprof consolidate}, {@code dprof analyze … whatif} predicts the
 * gain of removing every fsync ({@code sun.nio.ch.FileChannelImpl#force}, the very call the switch
 * skips, at speedup 100%) over the span from the first write's issue to the last write's callback;
 * the fast runs measure it, {@code 1 − T_fast/T_slow} over the medians of the spans, and the
 * figures and the acceptance criteria of {@code dprof demo --app service}
 * ({@link DemoStageSwitch#verdicts}, {@link DemoValidation#predictionError}) are printed.
 *
 * <p>Nothing ZooKeeper does is configured for dprof beyond the YAML: the requests cross the
 * servers' threads through ZooKeeper's own {@code LinkedBlockingQueue}s
 * ({@code PrepRequestProcessor} → {@code SyncRequestProcessor} → {@code CommitProcessor}) and the
 * {@code CommitProcessor}'s {@code wait}/{@code notifyAll}, which the agent records as handoffs, and
 * the servers' and the client's TCP connections, matched by bytes.
 *
 * <p>The tests assert only what is sound: every write succeeded; every converted tick of a slow
 * run, and each what-if's replay of the simulated clocks' truth, lies in its bound; ZooKeeper's
 * queues show as handoff sites with matched puts and takes in every server, and the commit's
 * notification of the {@code CommitProcessor} as a monitor handoff; the what-if of the fsync is
 * above zero over the servers' spans and over the client's. How close the prediction lands is a measurement, printed, never asserted.
 * Beside the figures, the servers' threads as the scheduler saw them over each span
 * ({@link ThreadSchedStats}: run time and run-queue wait per thread group), slow against fast:
 * what a what-if holds fixed when the fsync's absence also changes how long woken threads wait for
 * a CPU. A short run by default (CI); the figures of BENCHMARKS.md come from the same test with
 * {@code -Ddprof.zk.runs=N -Ddprof.zk.writes=W -Ddprof.zk.lanes=L -Ddprof.zk.dir=DIR}.
 */
class ZooKeeperIT {
    static final String FSYNC = "zk.fsync";
    static final String COMMIT = "zk.txnlog.commit";
    static final String WRITE = "zk.write";
    static final String DONE = "zk.done";
    /** Slow runs and as many fast ones, alternating. */
    private static final int RUNS = TestSettings.zooKeeper(TestSettings.ZK_RUNS_PROPERTY, 1);
    private static final int WRITES = TestSettings.zooKeeper(TestSettings.ZK_WRITES_PROPERTY, 400);
    private static final int LANES = TestSettings.zooKeeper(TestSettings.ZK_LANES_PROPERTY, 1);
    /** Synchronous writes before the span, outside the regions: the JIT's warm-up. */
    private static final int WARMUP = TestSettings.zooKeeper(TestSettings.ZK_WARMUP_PROPERTY, 200);
    /**
     * ZooKeeper's {@code tickTime} in ms. The leader pings its followers every half tick from a
     * timer, and each ping on the learner threads resets the what-if's accumulated gain
     * (BENCHMARKS.md, "ZooKeeper"): 120 s keeps pings out of the first minute, which a loaded host
     * needs (slow runs of 13–37 s when other builds wrote to the same disk; at 30 s, a ping inside
     * the span made the what-if of the fsync negative).
     */
    private static final int TICK_MS = TestSettings.zooKeeper(TestSettings.ZK_TICK_MS_PROPERTY, 120_000);
    /**
     * Whether idle CPUs poll instead of halting during the runs ({@link ZooKeeperHost}): halted
     * vCPUs after the fsyncs make a slow run's wake-ups slower than a fast run's, outside any region
     * (BENCHMARKS.md, "ZooKeeper").
     */
    private static final boolean POLL_IDLE = TestSettings.zooKeeperPollIdle();
    /** Where to keep everything (runs, profiles, summary.json); by default a temporary folder. */
    private static final Optional<String> KEEP = TestSettings.zooKeeperDir();
    private static final Pattern SPAN = Pattern.compile("^zk-load: writes (\\d+) ok (\\d+) failed (\\d+) span ([0-9.]+) s$");
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path tmp;
    private static Path dir;
    private static final List<Double> SLOW_SEC = new ArrayList<>();
    private static final List<Double> FAST_SEC = new ArrayList<>();
    /** The 1-minute load average before each run, in run order (slow, fast, slow, …). */
    private static final List<Double> LOAD_BEFORE = new ArrayList<>();
    /** The share of the CPUs' time no task used during each run's load, in run order. */
    private static final List<Double> IDLE = new ArrayList<>();
    /** How the machine's idle CPUs behaved during the runs ({@link ZooKeeperHost#describe()}). */
    private static final List<String> HOST = new ArrayList<>();
    private static final List<Output> LOADS = new ArrayList<>();
    /**
     * What the servers' threads did in the scheduler during each run's span, in run order: whether
     * a slow run's woken threads wait longer for a CPU than a fast run's, which no what-if sees.
     */
    private static final List<ThreadSchedStats.Delta> SCHED = new ArrayList<>();
    private static final List<Path> SLOW_RUNS = new ArrayList<>();
    private static final List<Path> SLOW_PROFILES = new ArrayList<>();
    private static final List<JsonNode> WHAT_IFS = new ArrayList<>();
    /**
     * The same what-if over a span that ends with the servers' last transaction log commit (each
     * holding an fsync) instead of the client's last callback.
     */
    private static final List<JsonNode> TO_COMMIT = new ArrayList<>();

    @BeforeAll
    static void runTheEnsemble() throws Exception {
        dir = KEEP.isEmpty() ? tmp : Files.createDirectories(Path.of(KEEP.get()));
        Path calibration = dir.resolve("calibration");
        SplittableRandom random = new SplittableRandom(7);
        long tscHz = Math.round(CalibrationFiles.nominalTickHz(OrderedClock.of(Optional.empty())));
        DomainClock reference = OrderedClock.of(Optional.of(SimulatedClock.parse("rate=1.0,offset="
                + random.nextLong(1L << 40) + ",tsc-hz=" + tscHz)));
        Path key = dir.resolve(SharedKey.RUN_KEY_FILE);
        Files.deleteIfExists(key);
        CalibrationServer base = CalibrationServer.start(0, reference, Optional.of(SharedKey.generate(key)), line -> { });
        CalibrationFile referenceFile = CalibrationFiles.create(calibration, reference, Optional.empty(),
                CalibrationFiles.nominalTickHz(reference));
        try (ZooKeeperHost host = ZooKeeperHost.start(POLL_IDLE)) {
            HOST.add(host.describe());
            Path yaml = ForkedJvm.config(dir, yaml(base.port(), key));
            // Alternating, so that a drift of the machine's load hits both kinds alike.
            for (int i = 0; i < 2 * RUNS; i++) {
                boolean slow = i % 2 == 0;
                List<String> sims = new ArrayList<>();
                for (int jvm = 0; jvm <= ZooKeeperEnsemble.SERVERS; jvm++) {
                    sims.add(String.format(Locale.ROOT, "rate=%.5f,offset=%d,tsc-hz=%d", 1.23 + 0.17 * random.nextDouble(),
                            random.nextLong(1L << 42) - (1L << 41), tscHz));
                }
                Path out = null;
                Output load = null;
                ZooKeeperHost.flushDirtyPages();
                LOAD_BEFORE.add(ZooKeeperHost.loadAverage());
                for (int attempt = 1; load == null; attempt++) {
                    Path run = dir.resolve((slow ? "slow-" : "fast-") + i / 2 + (attempt == 1 ? "" : "-attempt-" + attempt));
                    out = run.resolve("runs");
                    try (ZooKeeperEnsemble ensemble = ZooKeeperEnsemble.start(run, yaml, out, sims, slow, TICK_MS)) {
                        // server 1: a follower (the election makes the highest id of the first quorum leader),
                        // so each write also crosses the follower → leader → followers → leader → follower hops
                        long[] cpuBefore = ZooKeeperHost.cpuTimes();
                        load = ensemble.load(run, yaml, out, sims.get(ZooKeeperEnsemble.SERVERS), 0, WRITES, LANES, WARMUP);
                        IDLE.add(ZooKeeperHost.idleShare(cpuBefore, ZooKeeperHost.cpuTimes()));
                    } catch (AssertionError e) {
                        // again only when a server's port was taken by another process between pick and bind
                        if (attempt == ExamplesIT.ATTEMPTS || !String.valueOf(e.getMessage()).contains(ExamplesIT.PORT_TAKEN)) {
                            throw e;
                        }
                    }
                }
                Output finished = load;
                LOADS.add(finished);
                assertEquals(0, finished.exitCode(), () -> "the load failed\n" + finished);
                SCHED.add(ThreadSchedStats.delta(ThreadSchedStats.parse("start", finished.stdout()),
                        ThreadSchedStats.parse("end", finished.stdout())));
                (slow ? SLOW_SEC : FAST_SEC).add(span(finished));
                if (slow) {
                    SLOW_RUNS.add(out);
                }
            }
        } finally {
            base.close();
            referenceFile.end();
            referenceFile.close();
        }
        for (Path out : SLOW_RUNS) {
            Path profile = out.resolveSibling("profile");
            dprof("consolidate", out, "--calibration", calibration, "--out", profile);
            SLOW_PROFILES.add(profile);
            WHAT_IFS.add(json(dprof("analyze", profile, "whatif", "--region", FSYNC, "--speedup", "100%",
                    "--from", WRITE, "--to", DONE, "--json")));
            TO_COMMIT.add(json(dprof("analyze", profile, "whatif", "--region", FSYNC, "--speedup", "100%",
                    "--from", WRITE, "--to", COMMIT, "--json")));
        }
        report();
    }

    /** The agent's configuration: ZooKeeper's stages by name, the load's span, the calibration base. */
    private static String yaml(int basePort, Path key) {
        return """
                version: 1
                calibration:
                  base: 127.0.0.1:%d
                  intervalSec: 2
                  keyFile: "%s"
                regions:
                  # the transaction log's fsync: the call zookeeper.forceSync=no skips (FileTxnLog.commit)
                  - name: zk.fsync
                    class: sun.nio.ch.FileChannelImpl
                    method: force
                    descriptor: "(Z)V"
                  # the narrowest ZooKeeper method around it: flush and fsync of the transaction log
                  - name: zk.txnlog.commit
                    class: org.apache.zookeeper.server.persistence.FileTxnLog
                    method: commit
                  # the first and last stages of a request in a server
                  - name: zk.prep
                    class: org.apache.zookeeper.server.PrepRequestProcessor
                    method: pRequest
                  - name: zk.final
                    class: org.apache.zookeeper.server.FinalRequestProcessor
                    method: processRequest
                  # the load: a write's issue and its callback (the span runs from the first to the last)
                  - name: zk.write
                    class: dev.dprof.it.app.ZooKeeperLoad$Lane
                    method: issue
                  - name: zk.done
                    class: dev.dprof.it.app.ZooKeeperLoad$Lane
                    method: processResult
                """.formatted(basePort, key.toAbsolutePath());
    }

    @Test
    void everyWriteSucceeded() {
        assertEquals(2 * RUNS, LOADS.size());
        for (Output load : LOADS) {
            Matcher m = load.stdout().stream().map(SPAN::matcher).filter(Matcher::matches).findFirst()
                    .orElseThrow(() -> new AssertionError("no span line\n" + load));
            assertEquals(WRITES, Integer.parseInt(m.group(1)), load::toString);
            assertEquals(WRITES, Integer.parseInt(m.group(2)), load::toString);
            assertEquals(0, Integer.parseInt(m.group(3)), load::toString);
        }
    }

    /** Every converted tick of every slow run contains its truth, and so does each what-if's replay of the truth. */
    @Test
    void theBoundsContainTheTruth() throws Exception {
        for (int run = 0; run < SLOW_PROFILES.size(); run++) {
            Profile profile = Profile.open(SLOW_PROFILES.get(run));
            assertTrue(profile.info().truth(), "the clocks are simulated: the profile has a truth column");
            long checked = 0;
            try (ProfileEventsReader events = profile.events()) {
                ProfileEvent e = new ProfileEvent();
                while (events.next(e)) {
                    checked++;
                    if (e.lo > e.truth || e.truth > e.hi) {
                        fail("run " + run + ": event " + checked + " truth " + e.truth + " outside [" + e.lo + ", " + e.hi
                                + "]");
                    }
                }
            }
            assertTrue(checked > 0);
            JsonNode p = WHAT_IFS.get(run).get("predictions").get(0);
            double lo = p.get("lo").asDouble();
            double hi = p.get("hi").asDouble();
            double truth = p.get("truth").asDouble();
            assertTrue(lo <= truth && truth <= hi, () -> "what-if truth " + truth + " outside [" + lo + ", " + hi + "]");
        }
    }

    /**
     * In every server of the first slow run, each of ZooKeeper's pipeline queues is a handoff site
     * whose takes find their puts: a take's (channel, key) is a put's of the same process.
     */
    @Test
    void zooKeepersQueuesAreHandoffSites() throws Exception {
        int servers = 0;
        int leaders = 0;
        for (Path queue : RunDirs.expand(List.of(SLOW_RUNS.get(0)))) {
            Recording r = Recording.read(queue);
            Map<String, long[]> bySite = matchedBySite(r);
            if (!bySite.keySet().stream().anyMatch(s -> s.contains("SyncRequestProcessor"))) {
                continue; // the client: it has no transaction log
            }
            servers++;
            // every server logs and commits each write; only the leader prepares it (followers forward it)
            for (String stage : List.of("SyncRequestProcessor", "CommitProcessor")) {
                assertTrue(matched(bySite, stage) > 0, () -> r.dir() + ": no matched handoff through " + stage
                        + "'s queue: " + sites(bySite));
            }
            // the commit wakes the CommitProcessor's wait through its monitor
            assertTrue(bySite.entrySet().stream().filter(e -> e.getKey().startsWith("monitor: notifyAll in "
                    + "CommitProcessor.")).mapToLong(e -> e.getValue()[2]).sum() > 0,
                    () -> r.dir() + ": no notification of the CommitProcessor recorded: " + sites(bySite));
            if (matched(bySite, "PrepRequestProcessor") > 0) {
                leaders++;
            }
        }
        assertEquals(ZooKeeperEnsemble.SERVERS, servers, "servers with a transaction log and ZooKeeper's queues");
        assertEquals(1, leaders, "servers whose PrepRequestProcessor's queue handed requests on (the leader)");
        Profile profile = Profile.open(SLOW_PROFILES.get(0));
        assertTrue(profile.info().handoffs().matched() > 0, () -> "no handoff edge in the profile: " + profile.info().handoffs());
    }

    /**
     * The load client read every server's threads at the span's start and end: each server's
     * {@code SyncThread} (the transaction log's) is among them, and no sum went backwards.
     */
    @Test
    void theServersThreadsWereRead() {
        assertEquals(2 * RUNS, SCHED.size());
        for (int i = 0; i < SCHED.size(); i++) {
            ThreadSchedStats.Delta d = SCHED.get(i);
            String run = runName(i);
            ThreadSchedStats.Sums sync = d.groups().get(ThreadSchedStats.group("SyncThread:1"));
            assertTrue(sync != null && sync.threads() == ZooKeeperEnsemble.SERVERS, () -> run + ": " + d.groups().keySet());
            d.groups().forEach((g, x) -> assertTrue(x.runNs() >= 0 && x.waitNs() >= 0 && x.slices() >= 0, () -> run + ": "
                    + g + " " + x));
            assertTrue(sync.slices() > 0, () -> run + ": the SyncThreads never ran in the span: " + sync);
        }
    }

    /**
     * Removing the fsync gains time on the servers (over the span that ends with each server's last
     * transaction log commit, each of which holds an fsync) and over the client's span: each
     * server's {@code CommitProcessor} waits in {@code Object.wait} for the commit's
     * {@code notifyAll}, a monitor handoff, so a faster commit reaches the reply. How much it
     * gains against the measured gain is a measurement (BENCHMARKS.md, "ZooKeeper"), never asserted.
     */
    @Test
    void theWhatIfOfTheFsyncGains() {
        for (List<JsonNode> whatIfs : List.of(TO_COMMIT, WHAT_IFS)) {
            for (JsonNode w : whatIfs) {
                JsonNode p = w.get("predictions").get(0);
                assertTrue(p.get("lo").asDouble() > 0, () -> "no gain predicted for removing the fsync: "
                        + w.toPrettyString());
            }
        }
    }

    private static long matched(Map<String, long[]> bySite, String stage) {
        return bySite.entrySet().stream().filter(e -> e.getKey().contains("allocated in " + stage + "."))
                .mapToLong(e -> e.getValue()[0]).sum();
    }

    /** Per handoff site of one process: [takes that found a put, takes, puts]. */
    private static Map<String, long[]> matchedBySite(Recording r) {
        Set<List<Long>> puts = new HashSet<>();
        Map<String, long[]> bySite = new LinkedHashMap<>();
        for (Event e : r.events()) {
            if (e.kind() == EventKind.HANDOFF_PUT) {
                puts.add(List.of(e.a(), e.b()));
                bySite.computeIfAbsent(e.region(), k -> new long[3])[2]++;
            }
        }
        for (Event e : r.events()) {
            if (e.kind() == EventKind.HANDOFF_TAKE) {
                long[] site = bySite.computeIfAbsent(e.region(), k -> new long[3]);
                site[1]++;
                if (puts.contains(List.of(e.a(), e.b()))) {
                    site[0]++;
                }
            }
        }
        return bySite;
    }

    private static String sites(Map<String, long[]> bySite) {
        StringBuilder s = new StringBuilder();
        bySite.forEach((site, n) -> s.append("\n  ").append(site).append(": ").append(n[0]).append(" of ").append(n[1])
                .append(" takes matched, ").append(n[2]).append(" puts"));
        return s.toString();
    }

    /** Prints the figures (and writes {@code summary.json} into the kept folder). */
    private static void report() throws Exception {
        List<double[]> perRun = new ArrayList<>();
        for (JsonNode w : WHAT_IFS) {
            JsonNode p = w.get("predictions").get(0);
            perRun.add(new double[] {p.get("lo").asDouble(), p.get("hi").asDouble(), p.get("truth").asDouble()});
        }
        List<double[]> sorted = new ArrayList<>(perRun);
        sorted.sort((a, b) -> Double.compare(a[0] + a[1], b[0] + b[1]));
        double[] median = sorted.get((sorted.size() - 1) / 2);
        int medianRun = perRun.indexOf(median);
        double slow = DemoValidation.median(SLOW_SEC);
        double fast = DemoValidation.median(FAST_SEC);
        double measured = 1 - fast / slow;
        double[] interval = gainInterval(SLOW_SEC, FAST_SEC);
        double[] error = DemoValidation.predictionError(slow, fast, median[0], median[1]);
        // Over the what-if's span: the agent's start-up and shutdown are not the writes' path.
        Output path = ForkedJvm.dprof(dir, "analyze", SLOW_PROFILES.get(medianRun), "critical-path", "--from", WRITE,
                "--to", DONE).run();
        Output pathJson = ForkedJvm.dprof(dir, "analyze", SLOW_PROFILES.get(medianRun), "critical-path", "--from", WRITE,
                "--to", DONE, "--json").run();
        Output stats = ForkedJvm.dprof(dir, "analyze", SLOW_PROFILES.get(medianRun), "stats").run();

        StringBuilder s = new StringBuilder();
        s.append(String.format(Locale.ROOT, "ZooKeeper 3.9.5, 3 servers + 1 client JVM, tickTime %d ms, %d writes × %d"
                + " lanes after %d warm-up writes, %d slow (forceSync=yes) and %d fast (forceSync=no) runs%n", TICK_MS,
                WRITES, LANES, WARMUP, SLOW_SEC.size(), FAST_SEC.size()));
        s.append(String.format(Locale.ROOT, "%s; dirty pages written back before each run; load average before each run"
                + " (slow, fast, …): %s, after: %.2f; CPUs idle during each load (client JVM start to end): %s%n",
                HOST.get(0), LOAD_BEFORE, ZooKeeperHost.loadAverage(),
                IDLE.stream().map(i -> String.format(Locale.ROOT, "%.1f%%", 100 * i)).toList()));
        s.append(String.format(Locale.ROOT, "what-if: %s by 100%%, span %s → %s%n", FSYNC, WRITE, DONE));
        for (int i = 0; i < perRun.size(); i++) {
            double[] p = perRun.get(i);
            s.append(String.format(Locale.ROOT, "  slow run %d: predicted [%.3f%%, %.3f%%] truth %.3f%%%n", i, 100 * p[0],
                    100 * p[1], 100 * p[2]));
        }
        s.append(String.format(Locale.ROOT, "  median [%.3f%%, %.3f%%] (run %d)%n", 100 * median[0], 100 * median[1],
                medianRun));
        for (int i = 0; i < TO_COMMIT.size(); i++) {
            JsonNode p = TO_COMMIT.get(i).get("predictions").get(0);
            s.append(String.format(Locale.ROOT, "  slow run %d, span %s → %s instead: [%.3f%%, %.3f%%] (%.3f ms of %.3f)%n",
                    i, WRITE, COMMIT, 100 * p.get("lo").asDouble(), 100 * p.get("hi").asDouble(),
                    p.get("gainNsLo").asDouble() / 1e6, TO_COMMIT.get(i).get("spanNsLo").asDouble() / 1e6));
        }
        s.append(String.format(Locale.ROOT, "actual: slow %.3f s, fast %.3f s (medians; spans %s and %s): speedup %.3f%%%n",
                slow, fast, SLOW_SEC, FAST_SEC, 100 * measured));
        String inInterval = relation(median, interval);
        s.append(String.format(Locale.ROOT, "prediction error [%.3f%%, %.3f%%]%n", 100 * error[0], 100 * error[1]));
        List<DemoStageSwitch.Verdict> verdicts = DemoStageSwitch.verdicts(median[0], median[1], measured);
        verdicts.forEach(v -> s.append("  ").append(v.line()).append('\n'));
        s.append(String.format(Locale.ROOT, "  beside the verdict: the measured gain's 95%% bootstrap interval over the runs'"
                + " spans is [%.3f%%, %.3f%%] (%d runs of each kind); the prediction [%.3f%%, %.3f%%] lies %s it%n",
                100 * interval[0], 100 * interval[1], SLOW_SEC.size(), 100 * median[0], 100 * median[1], inInterval));
        scheduler(s, measured, median);
        s.append("\n$ dprof analyze PROFILE critical-path --from " + WRITE + " --to " + DONE + " (median slow run)\n")
                .append(String.join("\n", path.stdout())).append('\n').append(String.join("\n", path.stderr())).append('\n');
        s.append("\n$ dprof analyze PROFILE stats\n").append(String.join("\n", stats.stdout())).append('\n');
        System.out.println(s);

        ObjectNode root = JSON.createObjectNode();
        root.put("writes", WRITES).put("lanes", LANES).put("warmup", WARMUP).put("runs", RUNS).put("tickMs", TICK_MS)
                .put("pollIdle", POLL_IDLE)
                .put("host", HOST.get(0));
        ArrayNode loads = root.putArray("loadBefore");
        LOAD_BEFORE.forEach(loads::add);
        ArrayNode idle = root.putArray("cpuIdle");
        IDLE.forEach(idle::add);
        ArrayNode runs = root.putArray("predicted");
        perRun.forEach(p -> runs.addObject().put("lo", p[0]).put("hi", p[1]).put("truth", p[2]));
        root.putObject("median").put("lo", median[0]).put("hi", median[1]);
        ArrayNode slowSpans = root.putArray("slowSec");
        SLOW_SEC.forEach(slowSpans::add);
        ArrayNode fastSpans = root.putArray("fastSec");
        FAST_SEC.forEach(fastSpans::add);
        root.put("measured", measured);
        root.putObject("measuredInterval").put("lo", interval[0]).put("hi", interval[1]).put("prediction", inInterval);
        ArrayNode sched = root.putArray("scheduler");
        for (int i = 0; i < SCHED.size(); i++) {
            ThreadSchedStats.Delta d = SCHED.get(i);
            ObjectNode run = sched.addObject().put("run", runName(i)).put("cpuIdle", IDLE.get(i))
                    .put("loadBefore", LOAD_BEFORE.get(i)).put("threadsGone", d.threadsGone());
            ObjectNode groups = run.putObject("groups");
            d.groups().forEach((g, sums) -> sums(groups.putObject(g), sums));
            sums(run.putObject("requestPath"), requestPath(d));
            sums(run.putObject("allThreads"), d.total());
        }
        root.putObject("error").put("lo", error[0]).put("hi", error[1]);
        root.putObject("accepted").put("containsOrNear", verdicts.get(0).pass()).put("tight", verdicts.get(1).pass());
        if (pathJson.exitCode() == 0) {
            root.set("criticalPath", json(pathJson));
        }
        root.set("whatIf", WHAT_IFS.get(medianRun));
        Files.writeString(dir.resolve("summary.txt"), s.toString());
        JSON.writerWithDefaultPrettyPrinter().writeValue(dir.resolve("summary.json").toFile(), root);
    }

    /** Whether the prediction's bound lies inside the measured gain's interval, overlaps it, or lies below or above it. */
    static String relation(double[] prediction, double[] interval) {
        if (prediction[1] < interval[0]) {
            return "below";
        }
        if (prediction[0] > interval[1]) {
            return "above";
        }
        return prediction[0] >= interval[0] && prediction[1] <= interval[1] ? "inside" : "across the edge of";
    }

    private static String runName(int i) {
        return (i % 2 == 0 ? "slow-" : "fast-") + i / 2;
    }

    private static ThreadSchedStats.Sums requestPath(ThreadSchedStats.Delta d) {
        return d.groups().entrySet().stream().filter(e -> ThreadSchedStats.requestPath(e.getKey())).map(Map.Entry::getValue)
                .reduce(ThreadSchedStats.Sums.NONE, ThreadSchedStats.Sums::plus);
    }

    private static void sums(ObjectNode o, ThreadSchedStats.Sums sums) {
        o.put("threads", sums.threads()).put("runNs", sums.runNs()).put("runQueueWaitNs", sums.waitNs())
                .put("timeslices", sums.slices()).put("voluntarySwitches", sums.voluntary())
                .put("involuntarySwitches", sums.involuntary()).put("waitPerTimesliceNs", sums.waitPerSliceNs());
    }

    /**
     * Per run, each server thread group's time on a CPU and in a run queue over the span (summed
     * over the three servers), and then slow against fast: the wait per timeslice (each wake-up
     * starts one) and the what-if's miss. A slow run whose woken threads wait longer for a CPU
     * than a fast run's is slower outside the fsync, which the what-if holds fixed.
     */
    private static void scheduler(StringBuilder s, double measured, double[] median) {
        s.append("\nscheduler (/proc/PID/task/TID/schedstat of every server thread, span start → end, summed over the"
                + " servers): run ms / run-queue wait ms / timeslices (voluntary switches) / wait per timeslice µs\n");
        Set<String> shown = new TreeSet<>();
        for (int i = 0; i < SCHED.size(); i++) {
            ThreadSchedStats.Delta d = SCHED.get(i);
            s.append(String.format(Locale.ROOT, "  %s (CPUs idle %.1f%%, load before %.2f%s):%n", runName(i), 100 * IDLE.get(i),
                    LOAD_BEFORE.get(i), d.threadsGone() == 0 ? "" : ", " + d.threadsGone() + " threads ended in the span,"
                            + " their time since the start left out"));
            ThreadSchedStats.Sums rest = ThreadSchedStats.Sums.NONE;
            for (Map.Entry<String, ThreadSchedStats.Sums> e : d.groups().entrySet()) {
                // a millisecond either way: the threads that took part in the span
                if (ThreadSchedStats.requestPath(e.getKey()) || e.getValue().runNs() + e.getValue().waitNs() >= 1_000_000) {
                    schedLine(s, e.getKey(), e.getValue());
                    shown.add(e.getKey());
                } else {
                    rest = rest.plus(e.getValue());
                }
            }
            schedLine(s, "other threads", rest);
            schedLine(s, "ZooKeeper's request path", requestPath(d));
            schedLine(s, "all threads", d.total());
        }
        s.append("slow against fast, medians over the runs, ZooKeeper's request path: wait per timeslice µs slow / fast"
                + " (ratio); timeslices slow / fast\n");
        for (String g : shown) {
            if (ThreadSchedStats.requestPath(g)) {
                compareLine(s, g, d -> d.groups().getOrDefault(g, ThreadSchedStats.Sums.NONE));
            }
        }
        compareLine(s, "ZooKeeper's request path", ZooKeeperIT::requestPath);
        compareLine(s, "all threads", ThreadSchedStats.Delta::total);
        s.append(String.format(Locale.ROOT, "  the what-if's miss beside it: measured %.3f%% − predicted [%.3f%%, %.3f%%] ="
                + " [%.2f, %.2f] points%n", 100 * measured, 100 * median[0], 100 * median[1], 100 * (measured - median[1]),
                100 * (measured - median[0])));
    }

    private static void schedLine(StringBuilder s, String group, ThreadSchedStats.Sums x) {
        s.append(String.format(Locale.ROOT, "    %-46s %3d threads %9.1f / %9.1f / %7d (%7d) / %8.1f%n", group, x.threads(),
                x.runNs() / 1e6, x.waitNs() / 1e6, x.slices(), x.voluntary(), x.waitPerSliceNs() / 1e3));
    }

    private static void compareLine(StringBuilder s, String group,
            Function<ThreadSchedStats.Delta, ThreadSchedStats.Sums> of) {
        List<Double> waitSlow = new ArrayList<>();
        List<Double> waitFast = new ArrayList<>();
        List<Double> slicesSlow = new ArrayList<>();
        List<Double> slicesFast = new ArrayList<>();
        for (int i = 0; i < SCHED.size(); i++) {
            ThreadSchedStats.Sums x = of.apply(SCHED.get(i));
            (i % 2 == 0 ? slicesSlow : slicesFast).add((double) x.slices());
            if (x.slices() > 0) {
                (i % 2 == 0 ? waitSlow : waitFast).add(x.waitPerSliceNs());
            }
        }
        double slow = waitSlow.isEmpty() ? Double.NaN : DemoValidation.median(waitSlow);
        double fast = waitFast.isEmpty() ? Double.NaN : DemoValidation.median(waitFast);
        s.append(String.format(Locale.ROOT, "  %-48s %8.1f / %8.1f (%5.2f×); %8.0f / %8.0f%n", group, slow / 1e3, fast / 1e3,
                slow / fast, DemoValidation.median(slicesSlow), DemoValidation.median(slicesFast)));
    }

    /**
     * The 95% percentile bootstrap interval of {@code 1 − median(fast)/median(slow)}: both kinds of
     * runs resampled with replacement, 10 000 times, from a fixed seed. Spans of one configuration
     * vary by 20–40% on a shared virtual machine, and a criterion of 5% needs to know whether the
     * measurement itself can tell that apart.
     */
    static double[] gainInterval(List<Double> slow, List<Double> fast) {
        SplittableRandom random = new SplittableRandom(11);
        int draws = 10_000;
        double[] gains = new double[draws];
        for (int d = 0; d < draws; d++) {
            gains[d] = 1 - DemoValidation.median(resample(fast, random)) / DemoValidation.median(resample(slow, random));
        }
        java.util.Arrays.sort(gains);
        return new double[] {gains[(int) (0.025 * draws)], gains[(int) (0.975 * draws) - 1]};
    }

    private static List<Double> resample(List<Double> spans, SplittableRandom random) {
        List<Double> draw = new ArrayList<>(spans.size());
        for (int i = 0; i < spans.size(); i++) {
            draw.add(spans.get(random.nextInt(spans.size())));
        }
        return draw;
    }

    private static double span(Output load) {
        for (String line : load.stdout()) {
            Matcher m = SPAN.matcher(line);
            if (m.matches()) {
                return Double.parseDouble(m.group(4));
            }
        }
        throw new AssertionError("the load printed no span\n" + load);
    }

    private static Output dprof(Object... args) throws Exception {
        Output output = ForkedJvm.dprof(dir, args).run();
        assertEquals(0, output.exitCode(), output::toString);
        return output;
    }

    private static JsonNode json(Output output) throws Exception {
        return JSON.readTree(String.join("\n", output.stdout()));
    }
}
