package dev.dprof.consolidator.analysis.causal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.consolidator.synthetic.Consolidated;
import dev.dprof.synthetic.SyntheticRun;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * On synthetic runs with simulated clocks (several domains, messages, barriers, a straggler,
 * with and without drift), consolidated with FreeZer: every what-if, zeroing and critical-path
 * [lo, hi] contains the value the same model gives on the true times.
 *
 * <p>The only allowance is the truth's own quantisation: a true time is a floored reference
 * reading, so a true duration is within one tick of the continuous one the bounds are about, and
 * a path has at most as many edges as the profile has events — {@code events / span} as a share.
 */
class CausalPropertiesTest {

    @ParameterizedTest(name = "seed {0}, drift {1} ppm")
    @CsvSource({"1, 0", "3, 0", "11, 50"})
    void everyPredictionContainsItsTruth(long seed, double drift, @TempDir Path dir) throws Exception {
        SyntheticRun.Result run = SyntheticRun.generate(SyntheticRun.Spec.of(3, 2, 8, 8_000, seed).drift(drift)
                .straggler(1, 2.0), dir);
        Consolidated c = Consolidated.of(run, dir.resolve("profile"), "bounded:2.2");
        List<String> misses = new ArrayList<>();
        for (String[] span : new String[][] {{null, null}, {SyntheticRun.BODY, SyntheticRun.BARRIER}}) {
            for (double fraction : new double[] {0.3, 1.0}) {
                WhatIf.Result r = WhatIf.rank(c.profile(), fraction, span[0], span[1]);
                assertNotNull(r.spanNsTruth());
                assertTrue(r.spanNsLo() <= r.spanNsTruth() && r.spanNsTruth() <= r.spanNsHi(), "span");
                double slack = c.events().size() / (r.spanNsLo() * r.referenceTickHz() / 1e9);
                for (WhatIf.Prediction p : r.predictions()) {
                    if (!(p.lo() - slack <= p.truth() && p.truth() <= p.hi() + slack)) {
                        misses.add(String.format("%s..%s %s × %.1f: truth %.6f outside [%.6f, %.6f]", span[0], span[1],
                                p.region(), fraction, p.truth(), p.lo(), p.hi()));
                    }
                }
            }
        }
        WhatIf.Prediction withLatency = WhatIf.predict(c.profile(), SyntheticRun.BODY, List.of(0.3), null, null,
                SyntheticRun.BODY).predictions().get(0);
        WhatIf.LatencySpeedup latency = withLatency.latency();
        double latencySlack = c.events().size() / (double) latency.totalTicksLo();
        if (!(latency.lo() - latencySlack <= latency.truth() && latency.truth() <= latency.hi() + latencySlack)) {
            misses.add(String.format("latency of %s: truth %.6f outside [%.6f, %.6f]", latency.region(), latency.truth(),
                    latency.lo(), latency.hi()));
        }
        for (String[] span : new String[][] {{null, null}, {SyntheticRun.BODY, SyntheticRun.BARRIER}}) {
            CriticalPath.Result cp = CriticalPath.compute(c.profile(), span[0], span[1]);
            assertTrue(cp.lengthTicksLo() <= cp.lengthTicksTruth() && cp.lengthTicksTruth() <= cp.lengthTicksHi());
            misses.addAll(pathMisses(cp, c.events().size()));
        }
        assertEquals(List.of(), misses);
    }

    /**
     * Every share and zeroing of {@code cp} whose bounds miss its truth, beyond the truth's
     * quantisation ({@code events} ticks over the path).
     */
    static List<String> pathMisses(CriticalPath.Result cp, int events) {
        List<String> misses = new ArrayList<>();
        double slack = events / (double) cp.lengthTicksLo();
        String span = cp.from() + ".." + cp.to() + " ";
        for (CriticalPath.Share s : cp.shares()) {
            if (!(s.lo() - slack <= s.truth() && s.truth() <= s.hi() + slack)) {
                misses.add(String.format("%scritical path share %s: truth %.6f outside [%.6f, %.6f]", span, s.name(),
                        s.truth(), s.lo(), s.hi()));
            }
        }
        for (CriticalPath.Zeroing z : cp.zeroing()) {
            if (!(z.savedLo() - slack <= z.truth() && z.truth() <= z.savedHi() + slack)) {
                misses.add(String.format("%szeroing %s: truth %.6f outside [%.6f, %.6f]", span, z.region(), z.truth(),
                        z.savedLo(), z.savedHi()));
            }
        }
        if (!(cp.handoffsOnPathLo() <= cp.handoffsOnPathTruth() && cp.handoffsOnPathTruth() <= cp.handoffsOnPathHi())) {
            misses.add(span + "handoffs on the path: truth " + cp.handoffsOnPathTruth() + " outside ["
                    + cp.handoffsOnPathLo() + ", " + cp.handoffsOnPathHi() + "]");
        }
        return misses;
    }

    @ParameterizedTest(name = "seed {0}")
    @CsvSource({"5", "6"})
    void theStragglersBodyIsWhereTheGainIs(long seed, @TempDir Path dir) throws Exception {
        SyntheticRun.Result run = SyntheticRun.generate(SyntheticRun.Spec.of(3, 2, 8, 8_000, seed).straggler(2, 3.0), dir);
        Consolidated c = Consolidated.of(run, dir.resolve("profile"), "bounded:2.2");
        WhatIf.Result r = WhatIf.rank(c.profile(), 0.5, SyntheticRun.BODY, SyntheticRun.BARRIER);
        WhatIf.Prediction top = r.predictions().get(0);
        // Every process's body contains the straggler's: cutting the body region helps most, and
        // the bounds are tight against a span of seconds.
        assertEquals(SyntheticRun.BODY, top.region());
        assertTrue(top.lo() > 0.1, top.toString());
        assertTrue(top.hi() - top.lo() < 0.01, top.toString());
    }
}
