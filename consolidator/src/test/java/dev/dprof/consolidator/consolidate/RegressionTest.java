package dev.dprof.consolidator.consolidate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.consolidator.synthetic.Consolidated;
import dev.dprof.synthetic.SyntheticRun;
import dev.dprof.format.profile.ProfileEvent;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.commons.numbers.fraction.BigFraction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Problems found while testing the consolidator, each fixed in main code; these tests keep them
 * fixed.
 */
class RegressionTest {

    /**
     * Durations inside a thread (docs/BOUNDS.md "Durations"): readings stand for continuous clocks,
     * so the continuous span is within {@code Δk ± 1} local ticks, and a difference of two reference
     * readings (of truths) is within one more reference tick: {@code (Δk)·[F_lo, F_hi]} alone missed
     * the truth for ~3–4% of consecutive event pairs.
     */
    @Test
    void durationsWithQuantisationHoldTheTrueReadingDifferences(@TempDir Path dir) throws Exception {
        SyntheticRun.Result run = SyntheticRun.generate(SyntheticRunPropertiesTest.spec(3, 0), dir);
        Consolidated c = Consolidated.of(run, dir.resolve("profile"), "bounded:2.2");
        long checked = 0;
        long misses = 0;
        for (Map.Entry<Integer, List<ProfileEvent>> s : SyntheticRunPropertiesTest.byStream(c.events()).entrySet()) {
            ProfileInfo.Process p = c.info().processes().get(c.info().streams().get(s.getKey()).process());
            BigFraction lo = Consolidated.rational(p.slopeLow());
            BigFraction hi = Consolidated.rational(p.slopeHigh());
            List<ProfileEvent> ev = s.getValue();
            for (int i = 0; i + 1 < ev.size(); i++) {
                BigFraction dk = BigFraction.of(ev.get(i + 1).tick - ev.get(i).tick);
                BigFraction truth = BigFraction.of(ev.get(i + 1).truth - ev.get(i).truth);
                checked++;
                // Readings stand for [k, k+1): the continuous span lies within Δk ± 1 local ticks, and
                // a difference of two reference readings within one more reference tick of it.
                BigFraction low = BigFraction.of(Math.max(0, ev.get(i + 1).tick - ev.get(i).tick - 1)).multiply(lo)
                        .subtract(1);
                BigFraction high = dk.add(1).multiply(hi).add(1);
                if (low.compareTo(truth) > 0 || high.compareTo(truth) < 0) {
                    misses++;
                }
            }
        }
        assertEquals(0, misses, "reading differences outside Δk·[slopeLow, slopeHigh], of " + checked);
    }

    /**
     * A {@code .cal} file with its header but no zero (a calibrating process killed before its first
     * round trip) crashes consolidation with {@code ArrayIndexOutOfBoundsException} in
     * {@code DomainConversion$Cursor.lowerAt} (windows empty; {@code windowFor} returns 0), called by
     * {@code MessageConstraints.apply} for a sibling message — before {@code CalibrationSet.converter}
     * could say "domain … has no zeros". Fix: in {@code Consolidator.run}, call
     * {@code calibration.converter(domain)} for every process's domain (it throws the clear
     * CalibrationException) before {@code MessageConstraints.apply}; and/or make
     * {@code MessageConstraints} skip messages of empty conversions.
     */
    @Test
    void aCalibrationWithoutZerosIsAClearErrorNamingTheDomain(@TempDir Path dir) throws Exception {
        SyntheticRun.Result run = SyntheticRun.generate(SyntheticRun.Spec.of(3, 2, 12, 12_000, 31).zeros(1, 0), dir);
        ConsolidationException e = assertThrows(ConsolidationException.class,
                () -> Consolidated.of(run, dir.resolve("profile"), "bounded:2.2"));
        assertTrue(e.getMessage().contains(run.processes().get(1).domainId()), e.getMessage());
    }

    /**
     * A killed process (no end record) is marked {@code "ended": false} in profile.json, but
     * {@code problems} — what {@code dprof consolidate} prints — does not say so, and the command's
     * summary does not show {@code ended}: a user is not told that the run is unfinished and that the
     * process's last drain interval is missing. Fix: add a problem line per process without end
     * record, e.g. "sim1-4025: no end record (killed?): its events up to its last drain are used".
     */
    @Test
    void anUnfinishedProcessIsNamedInTheProblems(@TempDir Path dir) throws Exception {
        SyntheticRun.Result run = SyntheticRun.generate(SyntheticRun.Spec.of(3, 2, 12, 12_000, 32).killed(1, 0.5), dir);
        Consolidated c = Consolidated.of(run, dir.resolve("profile"), "bounded:2.2");
        SyntheticRun.ProcessRun killed = run.processes().get(1);
        assertTrue(c.info().problems().stream().anyMatch(p -> p.contains(killed.host() + "-" + killed.pid())),
                "problems: " + c.info().problems());
    }
}
