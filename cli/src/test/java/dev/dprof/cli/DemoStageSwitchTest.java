package dev.dprof.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class DemoStageSwitchTest {
    private static boolean near(double lo, double hi, double measured) {
        return DemoStageSwitch.verdicts(lo, hi, measured).get(0).pass();
    }

    private static boolean tight(double lo, double hi, double measured) {
        return DemoStageSwitch.verdicts(lo, hi, measured).get(1).pass();
    }

    @Test
    void aPredictionThatContainsTheGainPasses() {
        assertTrue(near(0.40, 0.50, 0.45));
        assertTrue(near(0.45, 0.45, 0.45), "a point prediction on the gain");
    }

    @Test
    void aPredictionNextToTheGainPassesWithinFivePercentOfIt() {
        // measured 0.40: 5% of it is 0.02 points
        assertTrue(near(0.415, 0.42, 0.40));
        assertTrue(near(0.37, 0.385, 0.40));
        assertFalse(near(0.425, 0.43, 0.40));
        assertFalse(near(0.36, 0.375, 0.40));
        assertFalse(near(0, 0, 0.40), "no gain predicted where there was one");
    }

    @Test
    void aPredictionIsTightWhenAtMostAQuarterOfTheGainWide() {
        assertTrue(tight(0.40, 0.50, 0.40));
        assertFalse(tight(0.30, 0.41, 0.40));
        assertFalse(tight(0, 0.01, -0.02), "no gain measured: nothing is tight enough");
    }

    @Test
    void eachVerdictSaysPassOrFailFirst() {
        List<DemoStageSwitch.Verdict> v = DemoStageSwitch.verdicts(0.1, 0.5, 0.45);
        assertTrue(v.get(0).line().startsWith("PASS "), v.get(0)::line);
        assertTrue(v.get(1).line().startsWith("FAIL "), v.get(1)::line);
        assertEquals(2, v.size());
    }
}
