package dev.dprof.consolidator.analysis.causal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.consolidator.analysis.messages.HandoffEdges;
import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.consolidator.synthetic.Consolidated;
import dev.dprof.synthetic.SyntheticRun;
import dev.dprof.format.EventKind;
import dev.dprof.format.HandoffRegions;
import dev.dprof.format.profile.ProfileEvent;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Synthetic runs with handoffs between the threads of each process ({@link SyntheticRun.Spec#handoffs}:
 * queue elements, a future taken by several threads, {@code Thread.start} and {@code join}, some
 * puts never taken and some takes without a put), besides messages and barriers, on simulated
 * clocks with and without drift, consolidated with FreeZer:
 * <ul>
 * <li>the consolidation matches every handoff the generator made and counts the takes without a put
 * (every process uses the same channels and keys, which must never match across processes), and
 * none of them becomes a message or a calibration constraint;</li>
 * <li>its causal order writes every put before its takes and a started thread after its start;</li>
 * <li>every what-if, zeroing and critical-path share [lo, hi] contains the value the same model gives
 * on the true times, and so does the count of handoff edges on the critical path.</li>
 * </ul>
 * The slack is {@link CausalPropertiesTest}'s: the truth's own quantisation, one tick per event.
 */
class HandoffPropertiesTest {

    @ParameterizedTest(name = "seed {0}, drift {1} ppm")
    @CsvSource({"1, 0", "2, 0", "7, 50"})
    void boundsContainTheTruthAcrossHandoffs(long seed, double drift, @TempDir Path dir) throws Exception {
        SyntheticRun.Result run = SyntheticRun.generate(SyntheticRun.Spec.of(2, 3, 8, 6_000, seed).drift(drift)
                .straggler(1, 1.5).handoffs(true), dir);
        Consolidated c = Consolidated.of(run, dir.resolve("profile"), "bounded:2.2");
        ProfileInfo.Handoffs h = c.info().handoffs();
        assertEquals(run.handoffEdges(), h.matched(), h.toString());
        assertEquals(run.unmatchedTakes(), h.unmatchedTakes(), h.toString());
        assertEquals(0, h.ambiguousKeys());
        assertTrue(h.unmatchedPuts() > 0, h.toString());
        assertEquals(0, c.info().causalityConflicts());
        // handoffs join threads of one clock domain: never messages, never calibration constraints
        assertEquals(run.messages(), c.info().messages().matched());
        assertEquals(c.info().messages().matched(), c.info().messages().usedForCalibration()
                + c.info().messages().unusedForCalibration());
        assertPutsComeFirst(c);
        assertEquals(run.handoffEdges(), HandoffEdges.of(c.profile()).count());

        List<String> misses = new ArrayList<>();
        for (String[] span : new String[][] {{null, null}, {SyntheticRun.BODY, SyntheticRun.BARRIER}}) {
            for (double fraction : new double[] {0.3, 1.0}) {
                WhatIf.Result r = WhatIf.rank(c.profile(), fraction, span[0], span[1]);
                double slack = c.events().size() / (r.spanNsLo() * r.referenceTickHz() / 1e9);
                for (WhatIf.Prediction p : r.predictions()) {
                    if (!(p.lo() - slack <= p.truth() && p.truth() <= p.hi() + slack)) {
                        misses.add(String.format("%s..%s %s × %.1f: truth %.6f outside [%.6f, %.6f]", span[0], span[1],
                                p.region(), fraction, p.truth(), p.lo(), p.hi()));
                    }
                }
            }
        }
        for (String[] span : new String[][] {{null, null}, {SyntheticRun.BODY, SyntheticRun.BARRIER}}) {
            CriticalPath.Result cp = CriticalPath.compute(c.profile(), span[0], span[1]);
            assertTrue(cp.handoffsOnPathTruth() > 0, "the true path crosses no handoff: the run tests nothing");
            assertTrue(cp.lengthTicksLo() <= cp.lengthTicksTruth() && cp.lengthTicksTruth() <= cp.lengthTicksHi());
            misses.addAll(CausalPropertiesTest.pathMisses(cp, c.events().size()));
        }
        assertEquals(List.of(), misses);
    }

    /** In the profile's order, every take comes after the put with its key, and a started thread after its start. */
    private static void assertPutsComeFirst(Consolidated c) {
        Map<String, Integer> put = new HashMap<>();
        for (int i = 0; i < c.events().size(); i++) {
            ProfileEvent e = c.events().get(i);
            if (e.kind == EventKind.HANDOFF_PUT) {
                put.put(c.info().streams().get(e.stream).process() + ":" + e.a + ":" + e.b, i);
            }
        }
        Map<Integer, Boolean> seen = new HashMap<>();
        int checked = 0;
        for (int i = 0; i < c.events().size(); i++) {
            ProfileEvent e = c.events().get(i);
            ProfileInfo.Stream s = c.info().streams().get(e.stream);
            Integer source = null;
            if (seen.put(e.stream, true) == null) {
                source = put.get(s.process() + ":" + HandoffRegions.THREAD_START + ":" + s.thread());
            } else if (e.kind == EventKind.HANDOFF_TAKE) {
                source = put.get(s.process() + ":" + e.a + ":" + e.b);
            }
            if (source != null) {
                assertTrue(source < i, "event " + i + " (" + e + ") before what it waits for, event " + source);
                checked++;
            }
        }
        assertTrue(checked > 0);
    }
}
