package dev.dprof.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.dprof.agent.bootstrap.BootstrapSettings;
import dev.dprof.calibrator.estimate.DriftModels;
import dev.dprof.calibrator.net.CalibrationFiles;
import dev.dprof.calibrator.net.CalibrationServer;
import dev.dprof.calibrator.net.OrderedClock;
import dev.dprof.calibrator.net.SharedKey;
import dev.dprof.clock.ClockSource;
import dev.dprof.clock.DomainClock;
import dev.dprof.clock.SimulatedClock;
import dev.dprof.consolidator.consolidate.Consolidator;
import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.format.ByteSink;
import dev.dprof.format.ClockCheck;
import dev.dprof.format.EventKind;
import dev.dprof.format.calibration.CalibrationFile;
import dev.dprof.it.ForkedJvm.Output;
import dev.dprof.it.ForkedJvm.Recording;
import dev.dprof.it.app.CountingApp;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.queue.rollcycles.LargeRollCycles;
import net.openhft.chronicle.wire.DocumentContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent's clock check and calibration span in real runs on this machine (docs/BOUNDS.md, "The
 * counter is checked" and "Outside the span"): a run calibrated against a base records its counter as
 * invariant, keeps its bounds, and has no event outside the calibrated span (the exchange before
 * {@code main}, the final one after the last drain), and {@code calibration show} says CONTRADICTED once
 * the queue beside the calibration file holds a failed check; a run whose native library cannot load records
 * the declared {@code System.nanoTime} fallback, says why, and still consolidates.
 */
class ClockCheckIT {
    @Test
    void aCalibratedRunHereIsInvariantBoundedAndInsideItsSpan(@TempDir Path tmp) throws Exception {
        Path calibration = tmp.resolve("calibration");
        long tscHz = Math.round(CalibrationFiles.nominalTickHz(OrderedClock.of(Optional.empty())));
        // The base's clock is a simulated one, so that it is a domain of its own beside the agent's real counter.
        DomainClock reference = OrderedClock.of(Optional.of(SimulatedClock.parse("rate=1.0,offset=77777,tsc-hz=" + tscHz)));
        Path key = tmp.resolve(SharedKey.RUN_KEY_FILE);
        CalibrationServer base = CalibrationServer.start(0, reference, Optional.of(SharedKey.generate(key)), line -> { });
        CalibrationFile referenceFile = CalibrationFiles.create(calibration, reference, Optional.empty(),
                CalibrationFiles.nominalTickHz(reference));
        Path out = tmp.resolve("out");
        try {
            String yaml = CountingIT.YAML + "calibration:\n  base: 127.0.0.1:" + base.port() + "\n  intervalSec: 1\n"
                    + "  keyFile: \"" + key.toAbsolutePath() + "\"\n";
            Output output = ForkedJvm.app(CountingApp.class, tmp).agent(ForkedJvm.config(tmp, yaml), out)
                    .args(CountingIT.THREADS, 2_000).runOk();
            assertTrue(output.stdout().contains("sum=" + CountingApp.expectedSum(CountingIT.THREADS, 2_000)),
                    output::toString);
        } finally {
            base.close();
            referenceFile.end();
            referenceFile.close();
        }
        Recording run = Recording.readOnly(out);
        run.requireCleanEnd();
        ProfileInfo info = Consolidator.run(new Consolidator.Options(List.of(out), List.of(calibration),
                tmp.resolve("profile"), Consolidator.Sync.FREEZER, DriftModels.parse("bounded:1"), Optional.empty()),
                n -> { });
        assertEquals(1, info.processes().size());
        ProfileInfo.Process p = info.processes().get(0);
        String context = p + "\n" + info.problems();
        if (run.header().clockSource() == ClockSource.NANOTIME) {
            assertTrue(p.clockCheck().startsWith("not checked"), context); // built without a C compiler
        } else {
            assertTrue(p.clockCheck().startsWith("invariant ("), context);
        }
        assertEquals("BOUNDED", p.quality(), context);
        assertEquals(0, p.calibration().outsideSpanEvents(), context);
        assertEquals(0, p.calibration().unboundedEvents(), context);
        assertEquals(List.of(), info.problems(), context);
        assertEquals("BOUNDED", shownQuality(tmp, out, calibration, p.domain()).get("quality").asText());

        // The same run as if its agent had seen its CPUs' counters out of order: calibration show says so too.
        ClockCheck outOfOrder = new ClockCheck("rdtsc", ClockCheck.Answer.YES, "constant_tsc nonstop_tsc", "tsc",
                "tsc", 2, 4_000, 2_000, 1, 77);
        ByteSink record = new ByteSink(64);
        outOfOrder.encode(record);
        try (SingleChronicleQueue queue = SingleChronicleQueueBuilder.binary(run.dir())
                .rollCycle(LargeRollCycles.LARGE_DAILY).build();
             ExcerptAppender appender = queue.createAppender();
             DocumentContext dc = appender.writingDocument()) {
            dc.wire().bytes().write(record.array(), 0, record.size());
        }
        JsonNode shown = shownQuality(tmp, out, calibration, p.domain());
        assertEquals("CONTRADICTED", shown.get("quality").asText(), shown::toString);
        assertTrue(shown.get("contradiction").asText().startsWith("the counter is not one clock: "
                + outOfOrder.fault().orElseThrow()), shown::toString);
    }

    /** The domain's entry in {@code dprof calibration show --json} over the run and the base's calibration. */
    private static JsonNode shownQuality(Path tmp, Path out, Path calibration, String domain) throws Exception {
        Output shown = ForkedJvm.dprof(tmp, "calibration", "show", "--json", out, calibration).runOk();
        JsonNode root = new ObjectMapper().readTree(String.join("\n", shown.stdout()));
        for (JsonNode d : root.get("domains")) {
            if (d.get("domain").asText().equals(domain)) {
                return d;
            }
        }
        throw new AssertionError("no domain " + domain + " in\n" + shown);
    }

    @Test
    void aLibraryThatCannotLoadRecordsTheFallback(@TempDir Path tmp) throws Exception {
        Path out = tmp.resolve("out");
        Output output = ForkedJvm.app(CountingApp.class, tmp).agent(ForkedJvm.config(tmp, CountingIT.YAML), out)
                .property(BootstrapSettings.NATIVE_TMPDIR_PROPERTY, tmp.resolve("no-such-dir")).args(2, 500).runOk();
        assertTrue(output.stdout().contains("sum=" + CountingApp.expectedSum(2, 500)), output::toString);
        Recording run = Recording.readOnly(out);
        run.requireCleanEnd();
        assertEquals(ClockSource.NANOTIME, run.header().clockSource());
        assertTrue(run.header().domainId().startsWith("nanotime@"), run.header().domainId());
        assertTrue(run.header().clockNote().contains("falling back to System.nanoTime"), run.header().clockNote());
        assertEquals(2L * 2 * 500, run.events().stream().filter(e -> e.kind() == EventKind.ENTER)
                .filter(e -> e.region() != null && e.region().startsWith("count.")).count());
        ProfileInfo info = Consolidator.run(new Consolidator.Options(List.of(out), List.of(), tmp.resolve("profile"),
                Consolidator.Sync.NONE, null, Optional.empty()), n -> { });
        assertEquals("not checked: System.nanoTime is the kernel's clock", info.processes().get(0).clockCheck());
    }
}
