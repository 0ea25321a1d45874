package dev.dprof.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class StartPhasesTest {
    @Test
    void eachPhaseIsTheTimeSinceThePreviousMarkInOrder() {
        long start = System.nanoTime() - 5_000_000_000L;
        StartPhases phases = new StartPhases(start);
        assertNull(phases.line("start", System.nanoTime()), "nothing marked, nothing to say");
        phases.mark("config");
        phases.mark("weaving");
        String line = phases.line("start", start + 7_400_000_000L);
        assertTrue(line.startsWith("start 7400 ms (config "), line);
        assertTrue(line.matches("start 7400 ms \\(config \\d+, weaving \\d+\\)"), line);
        long config = Long.parseLong(line.replaceAll(".*config (\\d+),.*", "$1"));
        assertTrue(config >= 5000, "the first phase counts from the start: " + line);
    }

    @Test
    void millisecondsAreRounded() {
        assertEquals("2", StartPhases.millis(1_500_000));
        assertEquals("0", StartPhases.millis(499_999));
    }
}
