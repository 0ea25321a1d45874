package dev.dprof.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class OverheadCommandTest {
    @Test
    void eachIterationTakesItsSlowestRank() {
        double[][] byRank = {{0.30, 0.20, 0.16}, {0.28, 0.21, 0.15}};
        assertArrayEquals(new double[] {0.30, 0.21, 0.16}, OverheadCommand.slowestLaps(byRank));
    }

    @Test
    void noLapsUnlessEveryRankReportsTheSameNumber() {
        assertEquals(0, OverheadCommand.slowestLaps(new double[][] {{0.3, 0.2}, null}).length);
        assertEquals(0, OverheadCommand.slowestLaps(new double[][] {{0.3, 0.2}, {0.3}}).length);
        assertEquals(0, OverheadCommand.slowestLaps(new double[0][]).length);
    }

    @Test
    void signTestAndQuantiles() {
        assertEquals(1.0, OverheadCommand.signTest(5, 5), 1e-12);
        assertEquals(2.0 / 1024, OverheadCommand.signTest(10, 0), 1e-12);
        assertEquals(2.5, OverheadCommand.quantile(new double[] {4, 1, 2, 3}, 0.5), 1e-12);
    }

    @Test
    void onlyWellFormedWorkerLinesAreRead() {
        assertTrue(OverheadCommand.LAPS_LINE.matcher("[rank 1] kmeans: rank 1 laps ms 128.519 82.706 68").matches());
        assertFalse(OverheadCommand.LAPS_LINE.matcher("[rank 1] kmeans: rank 1 laps ms 1..2 3").matches());
        assertFalse(OverheadCommand.LAPS_LINE.matcher("[rank 1] kmeans: rank 1 laps ms").matches());
        assertTrue(OverheadCommand.CPU_LINE.matcher("[rank 0] kmeans: rank 0 cpu 0.870 s jit NaN s").matches());
        assertFalse(OverheadCommand.CPU_LINE.matcher("[rank 0] kmeans: rank 0 cpu 0.8.7 s jit 0.2 s").matches());
    }
}
