package dev.dprof.consolidator.consolidate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.consolidator.synthetic.Consolidated;
import dev.dprof.synthetic.SyntheticRun;
import dev.dprof.consolidator.synthetic.TornWriter;
import dev.dprof.format.profile.ProfileEvent;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What consolidation does with runs that are not whole: killed processes, torn documents, missing calibration, foreign versions. */
class BadInputTest {

    static SyntheticRun.Spec small(long seed) {
        return SyntheticRun.Spec.of(3, 2, 12, 12_000, seed).keepTruth(true);
    }

    /** A process killed halfway: no end record; everything it drained is used, and only that. */
    @Test
    void aKilledProcessContributesItsCompleteEventsAndIsReportedUnfinished(@TempDir Path dir) throws Exception {
        SyntheticRun.Result run = SyntheticRun.generate(small(21).killed(1, 0.5), dir);
        SyntheticRun.ProcessRun killed = run.processes().get(1);
        assertFalse(killed.ended());
        Consolidated c = Consolidated.of(run, dir.resolve("profile"), "bounded:2.2");
        assertWholeAndSound(c);
        for (ProfileInfo.Process p : c.info().processes()) {
            boolean isKilled = p.host().equals(killed.host()) && p.pid() == killed.pid();
            assertEquals(!isKilled, p.ended(), p.host() + " ended");
        }
        assertTrue(killed.eventsWritten() > 0 && killed.eventsWritten() < run.processes().get(0).eventsWritten(),
                "the killed process wrote part of a run: " + killed.eventsWritten());
        // Its partners' messages lost their other end; nothing is invented for them.
        assertTrue(c.info().messages().unmatchedSends() + c.info().messages().unmatchedReceives() > 0);
        assertEquals(0, c.info().causalityConflicts());
    }

    /** kill -9 inside an append (a forked JVM halted mid-document): the torn document is invisible, the rest is read. */
    @Test
    void aDocumentTornByKillIsIgnoredAndEverythingBeforeItIsUsed(@TempDir Path dir) throws Exception {
        SyntheticRun.Result run = SyntheticRun.generate(small(22).killed(2, 0.4), dir);
        SyntheticRun.ProcessRun killed = run.processes().get(2);
        String before = digest(killed.dir());
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(TornWriter.class.getName());
        cmd.add(killed.dir().toString());
        Path log = dir.resolve("torn.log");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        assertEquals(9, p.waitFor(), "the writer halts inside the document: " + Files.readString(log));
        assertTrue(Files.readString(log).contains("torn"), Files.readString(log));
        assertNotEquals(before, digest(killed.dir()), "the torn document reached the queue's files");

        Consolidated c = Consolidated.of(run, dir.resolve("profile"), "bounded:2.2");
        assertWholeAndSound(c);
        assertEquals(List.of(), c.info().problems().stream().filter(s -> s.contains("skipped")).toList());
    }

    @Test
    void aDomainWithoutCalibrationIsNamed(@TempDir Path dir) throws Exception {
        SyntheticRun.Result run = SyntheticRun.generate(small(23).uncalibrated(1), dir);
        SyntheticRun.ProcessRun p = run.processes().get(1);
        ConsolidationException e = assertThrows(ConsolidationException.class,
                () -> Consolidated.of(run, dir.resolve("profile"), "bounded:2.2"));
        assertTrue(e.getMessage().contains(p.domainId()), e.getMessage());
        assertTrue(e.getMessage().contains("has no calibration"), e.getMessage());
        assertTrue(e.getMessage().contains(p.host() + "-" + p.pid()), e.getMessage());
    }

    @Test
    void anUnknownFormatVersionIsRefusedByName(@TempDir Path dir) throws Exception {
        SyntheticRun.Result run = SyntheticRun.generate(small(24).formatVersion(5), dir);
        ConsolidationException e = assertThrows(ConsolidationException.class,
                () -> Consolidated.of(run, dir.resolve("profile"), "bounded:2.2"));
        assertTrue(e.getMessage().contains(run.processes().get(0).dir().toString()), e.getMessage());
        assertTrue(e.getMessage().endsWith("process header: unknown format version 5 (this build reads versions 1 to 4)"), e.getMessage());
    }

    /** Queues written before collectives had shapes (format version 1) still consolidate. */
    @Test
    void aVersionOneQueueIsStillRead(@TempDir Path dir) throws Exception {
        SyntheticRun.Result run = SyntheticRun.generate(small(25).formatVersion(1), dir);
        Consolidated c = Consolidated.of(run, dir.resolve("profile"), "bounded:2.2");
        assertTrue(c.events().size() > 0);
    }

    /** A domain calibrated by one zero only: the frequency is bounded by the box alone, still sound. */
    @Test
    void aSingleZeroGivesWideButSoundBounds(@TempDir Path dir) throws Exception {
        SyntheticRun.Result run = SyntheticRun.generate(small(25).zeros(1, 1), dir);
        Consolidated c = Consolidated.of(run, dir.resolve("profile"), "bounded:2.2");
        assertWholeAndSound(c);
        SyntheticRun.ProcessRun single = run.processes().get(1);
        assertEquals("SINGLE_ZERO", c.info().processes().get(c.processIndex(single)).quality());
    }

    /**
     * Clocks drifting by 5000 ppm under the constant-frequency model: zeros every 0.25 s contradict
     * every line, so no event has a sound bound. They are left out and counted, never bounded wrongly.
     */
    @Test
    void eventsWhereTheDataContradictTheDriftModelAreLeftOutAndCounted(@TempDir Path dir) throws Exception {
        SyntheticRun.Result run = SyntheticRun.generate(SyntheticRun.Spec.of(3, 2, 12, 12_000, 41).drift(5000)
                .bodyMicros(250_000).calibrationEverySeconds(0.25), dir);
        Consolidated c = Consolidated.of(run, dir.resolve("profile"), "constant");
        c.info().processes().forEach(p -> assertEquals("CONTRADICTED", p.quality(), p.host()));
        assertEquals(run.events(), c.info().unboundedEvents());
        assertEquals(0, c.info().events());
        List<String> problems = c.info().problems();
        assertEquals(run.events() + " events fell where the data contradict the drift assumption or beyond the"
                + " horizon outside the calibrated span; they have no sound bound and are left out",
                problems.get(problems.size() - 1));
        // Each process says where its domain's data broke the assumption and what it falls back to.
        assertEquals(3, problems.stream().filter(p -> p.contains("contradicts the assumption (no line fits")
                && p.contains("falls back to no bound")).count(), problems.toString());
        c.info().processes().forEach(p -> assertTrue(p.calibration().contradiction() != null, p.host()));
        // The same run under the default kind of assumption, wide enough for the wander (5000 ppm over
        // 300-900 s changes the frequency by up to 105 ppm/s), is bounded, and sound.
        Consolidated bounded = Consolidated.of(run, dir.resolve("bounded"), "bounded:128");
        assertEquals(run.events(), bounded.info().events());
        assertTrue(bounded.events().stream().allMatch(e -> e.lo <= e.truth && e.truth <= e.hi));
        // Under the default 1 ppm/s the wander breaks the model too: where the zeros show it, the events
        // are left out and counted; every event that keeps a bound still contains its truth.
        Consolidated narrow = Consolidated.of(run, dir.resolve("narrow"), "bounded:1");
        assertEquals(run.events(), narrow.info().events() + narrow.info().unboundedEvents());
        assertTrue(narrow.events().stream().allMatch(e -> e.lo <= e.truth && e.truth <= e.hi));
    }

    /** Every written event is in the profile, in its thread's order, with its truth inside its interval. */
    static void assertWholeAndSound(Consolidated c) {
        assertEquals(c.run().events(), c.info().events());
        assertEquals(0, c.info().unboundedEvents());
        Map<Integer, List<ProfileEvent>> byStream = SyntheticRunPropertiesTest.byStream(c.events());
        for (Map.Entry<Integer, List<ProfileEvent>> s : byStream.entrySet()) {
            List<SyntheticRun.Expected> expected = c.thread(s.getKey()).events();
            assertEquals(expected.size(), s.getValue().size(), "stream " + s.getKey());
            for (int i = 0; i < expected.size(); i++) {
                ProfileEvent e = s.getValue().get(i);
                assertEquals(expected.get(i).tick(), e.tick, "stream " + s.getKey() + " event " + i);
                assertTrue(e.lo <= e.truth && e.truth <= e.hi, "stream " + s.getKey() + " event " + i);
            }
        }
    }

    static String digest(Path dir) throws Exception {
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
                md.update(f.getFileName().toString().getBytes(StandardCharsets.UTF_8));
                md.update(readAll(f));
            }
        }
        return HexFormat.of().formatHex(md.digest());
    }

    private static byte[] readAll(Path f) throws IOException {
        return Files.readAllBytes(f);
    }
}
