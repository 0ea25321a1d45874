package dev.dprof.consolidator.consolidate;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.read.ProcessQueue;
import dev.dprof.consolidator.read.RecordVisitor;
import dev.dprof.consolidator.read.RunDirs;
import dev.dprof.consolidator.synthetic.Consolidated;
import dev.dprof.synthetic.SyntheticRun;
import dev.dprof.format.EventBatchReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The first pass skips batches flagged "no communication" undecoded; a queue whose batches lack
 * the flag (written before it existed) is decoded whole and must consolidate to the same profile;
 * so must a queue in the layout of format version 3.
 */
class CommunicationFlagTest {
    @Test
    void batchesWithAndWithoutTheFlagConsolidateAlike(@TempDir Path dir) throws Exception {
        SyntheticRun.Result flagged = SyntheticRun.generate(SyntheticRun.Spec.of(3, 2, 8, 6_000, 7), dir.resolve("a"));
        SyntheticRun.Result plain = SyntheticRun.generate(SyntheticRun.Spec.of(3, 2, 8, 6_000, 7)
                .communicationFlag(false), dir.resolve("b"));
        long[] flaggedCounts = flaggedBatches(flagged.runDir());
        assertTrue(flaggedCounts[0] > 0 && flaggedCounts[0] < flaggedCounts[1],
                "some batches, not all, hold no communication: " + flaggedCounts[0] + " of " + flaggedCounts[1]);
        assertEquals(0, flaggedBatches(plain.runDir())[0]);
        Consolidated a = Consolidated.of(flagged, dir.resolve("pa"), "bounded:2.2");
        Consolidated b = Consolidated.of(plain, dir.resolve("pb"), "bounded:2.2");
        assertEquals(a.info().messages(), b.info().messages());
        assertEquals(a.info().events(), b.info().events());
        assertArrayEquals(Files.readAllBytes(dir.resolve("pa").resolve(Profile.EVENTS)),
                Files.readAllBytes(dir.resolve("pb").resolve(Profile.EVENTS)));
    }

    /**
     * A queue of format version 3, whose batches wrote each send, receive, barrier and handoff event
     * twice (in the index, its tick absolute, and among the events), consolidates to the same profile
     * as the same run written in the present layout, with and without a truth column.
     */
    @Test
    void aVersionThreeQueueConsolidatesAsThePresentLayout(@TempDir Path dir) throws Exception {
        for (boolean truth : new boolean[] {false, true}) {
            Path at = dir.resolve("truth-" + truth);
            SyntheticRun.Result present = SyntheticRun.generate(spec(truth), at.resolve("a"));
            SyntheticRun.Result older = SyntheticRun.generate(spec(truth).formatVersion(3), at.resolve("b"));
            assertEquals(0, markedBatches(older.runDir()), "version 3's layout");
            assertTrue(markedBatches(present.runDir()) > 0, "the present layout");
            Consolidated a = Consolidated.of(present, at.resolve("pa"), "bounded:2.2");
            Consolidated b = Consolidated.of(older, at.resolve("pb"), "bounded:2.2");
            assertTrue(a.info().messages().matched() > 0 && a.info().messages().barrierInstances() > 0
                    && a.info().handoffs().matched() > 0, a.info().messages() + ", " + a.info().handoffs());
            assertEquals(a.info().messages(), b.info().messages());
            assertEquals(a.info().events(), b.info().events());
            assertEquals(a.info().handoffs(), b.info().handoffs());
            assertArrayEquals(Files.readAllBytes(at.resolve("pa").resolve(Profile.EVENTS)),
                    Files.readAllBytes(at.resolve("pb").resolve(Profile.EVENTS)));
        }
    }

    private static SyntheticRun.Spec spec(boolean truth) {
        return SyntheticRun.Spec.of(3, 3, 8, 6_000, 11).collectives(true).handoffs(true).truthColumn(truth);
    }

    private static long markedBatches(Path runDir) throws Exception {
        long[] marked = new long[1];
        for (Path q : RunDirs.expand(List.of(runDir))) {
            try (ProcessQueue queue = ProcessQueue.open(q)) {
                queue.read(new RecordVisitor() {
                    @Override
                    public void batch(EventBatchReader events) {
                        marked[0] += events.isMarked() ? 1 : 0;
                    }
                });
            }
        }
        return marked[0];
    }

    /** {flagged batches, all batches} over every queue of the run. */
    private static long[] flaggedBatches(Path runDir) throws Exception {
        long[] counts = new long[2];
        for (Path q : RunDirs.expand(List.of(runDir))) {
            try (ProcessQueue queue = ProcessQueue.open(q)) {
                queue.read(new RecordVisitor() {
                    @Override
                    public void batch(EventBatchReader events) {
                        counts[0] += events.holdsNoCommunication() ? 1 : 0;
                        counts[1]++;
                    }
                });
            }
        }
        return counts;
    }
}
