package dev.dprof.consolidator.consolidate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.consolidator.synthetic.Consolidated;
import dev.dprof.synthetic.SyntheticRun;
import dev.dprof.format.ByteSink;
import dev.dprof.format.ClockCheck;
import dev.dprof.format.ClockCheck.Answer;
import dev.dprof.format.profile.ProfileEvent;
import java.nio.file.Path;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.queue.rollcycles.LargeRollCycles;
import net.openhft.chronicle.wire.DocumentContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A process whose agent saw its CPUs' counters out of order: its domain gets no bound, every one of
 * its events is counted as without one and left out, the profile and the problems say why, and the
 * other domains keep their bounds (docs/BOUNDS.md, "The counter is checked").
 */
class ClockCheckConsolidationTest {
    private static final ClockCheck STEADY = new ClockCheck("rdtsc", Answer.YES, "constant_tsc nonstop_tsc", "tsc",
            "tsc hpet", 2, 40_000, 2_000, 0, 0);
    private static final ClockCheck OUT_OF_ORDER = new ClockCheck("rdtsc", Answer.YES, "constant_tsc nonstop_tsc",
            "tsc", "tsc hpet", 2, 40_000, 2_000, 3, 4_200);

    @Test
    void aDomainWhoseCountersDisagreeHasNoBounds(@TempDir Path dir) throws Exception {
        SyntheticRun.Result run = SyntheticRun.generate(SyntheticRun.Spec.of(3, 2, 12, 6_000, 5).keepTruth(true), dir);
        SyntheticRun.ProcessRun bad = run.processes().get(1);
        for (SyntheticRun.ProcessRun p : run.processes()) {
            append(p.dir(), p == bad ? OUT_OF_ORDER : STEADY);
        }
        Consolidated c = Consolidated.of(run, dir.resolve("profile"), "bounded:1");
        ProfileInfo info = c.info();
        long badEvents = 0;
        for (ProfileInfo.Process p : info.processes()) {
            String context = p + "\n" + info.problems();
            if (p.host().equals(bad.host()) && p.pid() == bad.pid()) {
                assertEquals("CONTRADICTED", p.quality(), context);
                assertEquals("the counter is not one clock: " + OUT_OF_ORDER.fault().orElseThrow() + " (process "
                        + bad.host() + "-" + bad.pid() + ")", p.calibration().contradiction(), context);
                assertTrue(p.calibration().fallback().startsWith("no bound for any tick of this domain"), context);
                assertEquals(OUT_OF_ORDER.summary(), p.clockCheck(), context);
                assertTrue(p.calibration().unboundedEvents() > 0, context);
                badEvents = p.calibration().unboundedEvents();
            } else {
                assertEquals("BOUNDED", p.quality(), context);
                assertEquals(0, p.calibration().unboundedEvents(), context);
                assertTrue(p.clockCheck().startsWith("invariant (rdtsc;"), context);
            }
        }
        assertEquals(badEvents, info.unboundedEvents());
        assertEquals(run.events() - badEvents, c.events().size(), "the events without a bound are left out");
        String label = bad.host() + "-" + bad.pid();
        String unbounded = badEvents + " events without a bound";
        assertTrue(info.problems().stream().anyMatch(l -> l.startsWith("process " + label + ": the calibration of domain")
                && l.contains("the TSC of 2 CPUs disagree") && l.contains(unbounded)),
                info.problems()::toString);
        for (ProfileEvent e : c.events()) {
            assertTrue(e.lo <= e.truth && e.truth <= e.hi, () -> "tick " + e.tick + " truth " + e.truth + " outside ["
                    + e.lo + ", " + e.hi + "]");
        }
    }

    /** As the drainer writes it, after the records already there (a reader takes it anywhere). */
    private static void append(Path queueDir, ClockCheck check) {
        ByteSink out = new ByteSink(64);
        check.encode(out);
        try (SingleChronicleQueue queue = SingleChronicleQueueBuilder.binary(queueDir)
                .rollCycle(LargeRollCycles.LARGE_DAILY).build();
             ExcerptAppender appender = queue.createAppender();
             DocumentContext dc = appender.writingDocument()) {
            dc.wire().bytes().write(out.array(), 0, out.size());
        }
    }
}
