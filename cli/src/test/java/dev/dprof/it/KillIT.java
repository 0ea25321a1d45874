package dev.dprof.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.agent.sink.QueueSink;
import dev.dprof.cli.Main;
import dev.dprof.consolidator.read.Damage;
import dev.dprof.consolidator.read.RunDirs;
import dev.dprof.consolidator.stats.RegionStats;
import dev.dprof.consolidator.stats.RunStatistics;
import dev.dprof.format.EventKind;
import dev.dprof.format.ProcessHeader;
import dev.dprof.format.RingFile;
import dev.dprof.it.ForkedJvm.Event;
import dev.dprof.it.ForkedJvm.Output;
import dev.dprof.it.ForkedJvm.Recording;
import dev.dprof.it.ForkedJvm.Running;
import dev.dprof.it.app.BurstApp;
import dev.dprof.it.app.CountingApp;
import dev.dprof.it.app.OverflowApp;
import dev.dprof.it.app.SpinApp;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kill -9} in the middle of a run: the queue left behind reads completely, without
 * waiting for the half-written document a killed writer may leave, without a byte of it
 * changing, and the statistics call the process unfinished. What the drainer had not yet written
 * is read from the ring files the probes store into, so every event recorded before the kill is
 * there, however long ago the drainer last passed.
 *
 * <p>How old the last recorded event may be: the process is killed while its thread records
 * without pause, so the last event read is the last one recorded before the kill. The event's
 * tick is put on the wall clock through the header's start tick, start time and nominal rate (an
 * error well below a millisecond over this run). {@value #SLACK_MS} ms of slack for
 * scheduling keeps this from being timing-flaky on a loaded two-core machine, far below the
 * drainer's second between passes.
 */
class KillIT {
    static final int DRAIN_MS = 5;
    static final long SLACK_MS = 300;

    /** What a kill leaves is read from the ring files, which only the native rings have. */
    @BeforeAll
    static void nativeRings() {
        ForkedJvm.assumeNativeLibrary();
    }

    @Test
    void killedProcessLeavesAReadableQueue(@TempDir Path tmp) throws Exception {
        Path out = tmp.resolve("out");
        Path config = ForkedJvm.config(tmp, """
                drainIntervalMs: %d
                regions:
                  - {name: spin.step, class: dev.dprof.it.app.SpinApp, method: step}
                """.formatted(DRAIN_MS));
        Running app = ForkedJvm.app(SpinApp.class, tmp).agent(config, out).start();
        app.awaitLine("running");
        Thread.sleep(1000);
        long killMillis = System.currentTimeMillis();
        Output output = app.kill();
        long deadMillis = System.currentTimeMillis();
        assertEquals(137, output.exitCode(), output::toString);

        Map<String, String> before = fingerprint(out);
        Recording run = assertTimeoutPreemptively(Duration.ofSeconds(30), () -> Recording.readOnly(out),
                "reading a killed process's queue must not wait for the document it left half-written");
        RunStatistics stats = assertTimeoutPreemptively(Duration.ofSeconds(30),
                () -> RunStatistics.of(List.of(run.dir())));
        assertEquals(before, fingerprint(out), "reading must not modify the queue files");

        assertTrue(run.end().isEmpty(), "a killed process has no end record");
        assertEquals(List.of(), run.problems(), "every document read is complete");
        List<Event> spin = run.thread("spin");
        assertEquals(EventKind.THREAD_START, spin.get(0).kind());
        for (Event e : spin.subList(1, spin.size())) {
            assertTrue((e.kind() == EventKind.ENTER || e.kind() == EventKind.EXIT) && "spin.step".equals(e.region()),
                    e::toString);
        }
        CountingIT.assertNonDecreasingTicks("spin", spin);
        long enters = run.count("spin.step", EventKind.ENTER);
        assertTrue(enters > 1000, "enters recorded: " + enters);

        ProcessHeader header = run.header();
        assertEquals(DRAIN_MS, header.drainIntervalMs());
        Event lastEnter = spin.stream().filter(e -> e.kind() == EventKind.ENTER).reduce((a, b) -> b).orElseThrow();
        double lastEnterMillis = header.startEpochMillis() + header.ticksToNanos(lastEnter.tick() - header.startTick()) / 1e6;
        double lagMillis = killMillis - lastEnterMillis;
        assertTrue(lagMillis <= SLACK_MS, "the last event read is " + lagMillis + " ms older than the kill");
        // Sanity of the conversion: nothing is recorded after the process is gone (100 ms for the
        // start tick and start time, read one after the other, on a busy machine).
        assertTrue(lastEnterMillis <= deadMillis + 100, "the last event on disk is "
                + (lastEnterMillis - deadMillis) + " ms after the process was gone?");

        assertEquals(1, stats.processes());
        assertEquals(1, stats.unfinishedProcesses());
        assertTrue(stats.problems().stream().anyMatch(p -> p.contains("did not end normally")
                && p.contains("recovered from its ring files")), stats.problems()::toString);
        RegionStats step = stats.regions().stream().filter(r -> r.name().equals("spin.step")).findFirst().orElseThrow();
        assertTrue(step.count() >= enters - 1 && step.count() <= enters, "complete calls: " + step.count());
    }

    /**
     * A burst of events after 4 s of silence, killed as soon as the burst is over: the drainer
     * sleeps through both (it passes once a second, or when a ring is half full), yet every event
     * is read — from the ring files. At a normal end the ring files are gone.
     */
    @Test
    void everyEventRecordedBeforeTheKillIsRead(@TempDir Path tmp) throws Exception {
        killAfterBurstsAndCheck(tmp, ForkedJvm.app(BurstApp.class, tmp));

        Path ended = tmp.resolve("ended");
        ForkedJvm.app(CountingApp.class, tmp).agent(ForkedJvm.config(tmp, CountingIT.YAML), ended).args(2, 100).runOk();
        try (Stream<Path> files = Files.walk(ended)) {
            assertEquals(List.of(), files.filter(f -> f.toString().endsWith(RingFile.SUFFIX)).toList(),
                    "ring files left after a normal end");
        }
    }

    /** Two bursts of {@link BurstApp} 4 s apart, killed as soon as the second is over; every event is read. */
    static void killAfterBurstsAndCheck(Path tmp, ForkedJvm burstApp) throws Exception {
        Path out = tmp.resolve("out");
        Path config = ForkedJvm.config(tmp, """
                drainIntervalMs: %d
                regions:
                  - {name: burst.step, class: dev.dprof.it.app.BurstApp, method: step}
                """.formatted(DRAIN_MS));
        Running app = burstApp.agent(config, out).start();
        app.awaitLine("ready");
        Thread.sleep(1000);
        app.println("go");
        app.awaitLine("burst 1");
        Thread.sleep(4000);
        app.println("go");
        app.awaitLine("burst 2");
        Output output = app.kill();
        assertEquals(137, output.exitCode(), output::toString);

        Recording run = Recording.readOnly(out);
        assertEquals(List.of(), run.problems());
        assertEquals(2L * BurstApp.CALLS, run.count("burst.step", EventKind.ENTER), "both bursts are on disk");
        assertEquals(2L * BurstApp.CALLS, run.count("burst.step", EventKind.EXIT));
    }

    /**
     * Events lost on purpose: tiny rings ({@code ringEvents: 1024}) and threads that record without
     * pause, killed once they are done. What is read and what is counted as lost (from the queue's
     * loss records and the ring files' own counters) add up to what the application recorded, in the
     * statistics and in what {@code dprof stats} prints.
     */
    @Test
    void keptAndCountedLostAddUpToRecordedAfterAKill(@TempDir Path tmp) throws Exception {
        Path out = tmp.resolve("out");
        // Handoffs off: with them, a worker whose ring is full at the latch's countDown loses that handoff
        // event too, which is counted as lost but is none of the steps the application counts.
        Path config = ForkedJvm.config(tmp, """
                ringEvents: 1024
                handoffs: off
                regions:
                  - {name: overflow.step, class: dev.dprof.it.app.OverflowApp, method: step}
                """);
        Running app = ForkedJvm.app(OverflowApp.class, tmp).agent(config, out).args(4, 200_000).start();
        app.awaitLine("recorded");
        Output output = app.kill();
        assertEquals(137, output.exitCode(), output::toString);
        long recorded = output.stdout().stream().filter(l -> l.startsWith("recorded "))
                .mapToLong(l -> Long.parseLong(l.substring("recorded ".length()))).findFirst().orElseThrow();

        Recording run = Recording.readOnly(out);
        long kept = run.count("overflow.step", EventKind.ENTER) + run.count("overflow.step", EventKind.EXIT);
        RunStatistics stats = RunStatistics.of(List.of(run.dir()));
        assertTrue(stats.lostEvents() > 0, "the tiny rings lost nothing? kept " + kept + " of " + recorded);
        assertTrue(stats.lostExact(), stats.problems()::toString);
        assertEquals(recorded, kept + stats.lostEvents(), "kept " + kept + " + counted lost " + stats.lostEvents());
        assertTrue(stats.problems().stream().anyMatch(p -> p.contains("did not end normally")
                && p.contains(stats.lostEvents() + " lost (per-thread buffers full")), stats.problems()::toString);

        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        PrintStream stdout = System.out;
        System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
        try {
            assertEquals(0, Main.run("stats", run.dir().toString()));
        } finally {
            System.setOut(stdout);
        }
        String firstLine = printed.toString(StandardCharsets.UTF_8).lines().findFirst().orElse("");
        assertTrue(firstLine.endsWith(" events, " + stats.lostEvents() + " lost"), firstLine);
    }

    /**
     * A process killed after creating its queue and before writing its header leaves a queue
     * without documents: {@code dprof stats} names it and still reports the intact processes. The
     * agent's own {@link QueueSink} makes that state here, since no kill could hit it reliably.
     */
    @Test
    void queueWithoutHeaderIsLeftOutAndTheRestStillCounts(@TempDir Path tmp) throws Exception {
        Path out = tmp.resolve("out");
        ForkedJvm.app(CountingApp.class, tmp).agent(ForkedJvm.config(tmp, CountingIT.YAML), out).args(2, 100).runOk();
        Path headerless = out.resolve("vm-1-1");
        QueueSink.open(headerless).close();

        List<Path> queues = RunDirs.expand(List.of(out));
        assertEquals(2, queues.size(), queues::toString);
        RunStatistics stats = RunStatistics.of(queues);
        assertEquals(1, stats.processes());
        // Nothing in an empty queue, and no ring file, says how many events the process had: counted as unknown.
        assertEquals(List.of(Damage.line(headerless + ": empty queue, the process header is missing; the process is"
                + " left out, its files say it recorded an unknown number of events (nothing readable counts them), all"
                + " counted as lost")), stats.problems());
        assertEquals(1, stats.leftOut().size());
        assertTrue(stats.leftOut().get(0).file().startsWith(headerless), "the file named is one of its own");
        assertTrue(!stats.leftOut().get(0).count().exact() && stats.leftOut().get(0).count().events() == 0);
        assertEquals(List.of(200L, 200L), stats.regions().stream().filter(r -> r.name().startsWith("count."))
                .map(RegionStats::count).toList());
        assertEquals(0, Main.run("stats", out.toString()));
    }

    /** Size, modification time and SHA-256 of every file under {@code dir}. */
    static Map<String, String> fingerprint(Path dir) throws IOException {
        Map<String, String> files = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.filter(Files::isRegularFile).toList()) {
                files.put(dir.relativize(p).toString(), Files.size(p) + " " + Files.getLastModifiedTime(p)
                        + " " + sha256(p));
            }
        }
        assertTrue(files.keySet().stream().anyMatch(f -> f.endsWith(".cq4")), "queue files: " + files.keySet());
        return files;
    }

    private static String sha256(Path file) throws IOException {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

}
