package dev.dprof.consolidator.analysis.stats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.consolidator.analysis.stats.ProfileStatistics.BarrierWait;
import dev.dprof.consolidator.analysis.stats.ProfileStatistics.PeerFigures;
import dev.dprof.consolidator.analysis.stats.ProfileStatistics.RegionFigures;
import dev.dprof.consolidator.analysis.stats.ProfileStatistics.Result;
import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.consolidator.synthetic.Consolidated;
import dev.dprof.synthetic.SyntheticRun;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * End to end on the synthetic runs ({@link SyntheticRun}: real queues and calibration files,
 * several simulated clock domains, a BSP workload with messages and barriers), consolidated with
 * FreeZer: every figure whose truth is known contains it. The measured region figures already
 * allow for the quantisation of the thread's clock ({@code [max(0, Δk − 1)·slopeLow,
 * (Δk + 1)·slopeHigh]} per instance), so the only allowance left is the truth's own: it is the
 * difference of two floored reference readings, within one reference tick of the continuous span
 * — per instance one reference tick for a total, one for a minimum or maximum. Message and barrier
 * figures are differences of intervals and contain it exactly.
 */
class SyntheticRunStatisticsTest {

    @ParameterizedTest(name = "seed {0}, drift {1} ppm")
    @CsvSource({"1, 0", "2, 0", "11, 50", "12, 50"})
    void everyFigureContainsItsTruth(long seed, double drift, @TempDir Path dir) throws Exception {
        int processes = 3;
        int threads = 2;
        int iterations = 8;
        SyntheticRun.Result run = SyntheticRun.generate(
                SyntheticRun.Spec.of(processes, threads, iterations, 8_000, seed).drift(drift), dir);
        Consolidated c = Consolidated.of(run, dir.resolve("profile"), "bounded:2.2");
        Result r = ProfileStatistics.compute(c.profile());
        ProfileInfo info = c.info();
        assertTrue(r.truth());
        assertEquals("BOUNDED", r.quality());
        assertEquals(info.assumption(), r.assumption());
        // The truth is floor(reference) at the exit less floor(reference) at the enter: within one
        // reference tick of the continuous span the measured bounds are about.
        double slack = 1;

        RegionFigures body = r.regions().stream().filter(f -> f.name().equals(SyntheticRun.BODY)).findFirst().orElseThrow();
        assertEquals((long) processes * threads * iterations, body.count());
        assertEquals(0, r.totals().open());
        assertEquals(0, r.totals().unpairedEnters() + r.totals().unpairedExits());

        List<String> misses = new ArrayList<>();
        List<RegionFigures> all = new ArrayList<>(r.regions());
        all.addAll(r.callers());
        for (RegionFigures f : all) {
            if (f.count() == 0) {
                continue;
            }
            assertNotNull(f.truth(), f.name());
            Bound total = f.measured().total();
            double s = f.count() * slack;
            if (!(total.lo() - s <= f.truth().total() && f.truth().total() <= total.hi() + s)) {
                misses.add(f.caller() + " → " + f.name() + ": truth " + f.truth().total() + " outside " + total);
            }
            Bound min = f.measured().min();
            if (!(min.lo() - slack <= f.truth().min() && f.truth().min() <= min.hi() + slack)) {
                misses.add(f.caller() + " → " + f.name() + ": min truth " + f.truth().min() + " outside " + min);
            }
            Bound max = f.measured().max();
            if (!(max.lo() - slack <= f.truth().max() && f.truth().max() <= max.hi() + slack)) {
                misses.add(f.caller() + " → " + f.name() + ": max truth " + f.truth().max() + " outside " + max);
            }
            // Corrected hi ≤ measured hi always (Δk − taken ≤ Δk + 1); corrected lo ≤ measured lo here because
            // the probe cost is ≥ 1 tick, so every instance of Δk ≥ 1 loses at least the tick the measured lo drops.
            assertTrue(f.corrected().total().hi() <= total.hi() && f.corrected().total().lo() <= total.lo(), f.name());
        }
        assertEquals(List.of(), misses);

        long messages = 0;
        for (PeerFigures p : r.peers()) {
            if (p.transmission().count() > 0) {
                messages += p.transmission().count();
                assertTrue(p.transmission().total().contains(p.transmissionTruth().total()), p.toString());
                assertTrue(p.transmission().min().contains(p.transmissionTruth().min()), p.toString());
                assertTrue(p.transmission().max().contains(p.transmissionTruth().max()), p.toString());
            }
            if (p.barrierInstances() > 0) {
                assertEquals(iterations, p.barrierInstances(), p.toString());
                assertTrue(p.syncDelay().contains(p.syncDelayTruth()), p.toString());
            }
        }
        assertEquals(run.messages(), messages);
        assertEquals(run.messages(), r.totals().matchedMessages());
        assertEquals(iterations, r.totals().barrierInstances());
        assertEquals(0, r.totals().unfinishedBarrierInstances());
        assertEquals(processes, r.barrierWaits().size());
        for (BarrierWait w : r.barrierWaits()) {
            assertTrue(w.delay().contains(w.truth()), w.toString());
        }
    }
}
