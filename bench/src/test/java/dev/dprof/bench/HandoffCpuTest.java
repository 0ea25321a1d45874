package dev.dprof.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class HandoffCpuTest {

    @Test
    void schedstatGivesTheFirstFieldInNanoseconds() {
        assertEquals(123456789L, HandoffCpu.schedstatNanos("123456789 4567 89\n"));
    }

    @Test
    void schedstatThatIsNotThreeNumbersIsNamed() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> HandoffCpu.schedstatNanos("12 34\n"));
        assertTrue(e.getMessage().startsWith("schedstat: "), e.getMessage());
        assertThrows(NumberFormatException.class, () -> HandoffCpu.schedstatNanos("x 1 2"));
    }

    @Test
    void minorFaultsAreTheTenthFieldOfStatEvenWithSpacesInTheName() {
        String stat = "4242 (dprof drainer) S 1 4200 4200 0 -1 4194368 98765 0 12 0 300 40 0 0 20 0 40 0\n";
        assertEquals(98765L, HandoffCpu.minorFaults(stat));
        assertThrows(IllegalArgumentException.class, () -> HandoffCpu.minorFaults("4242 (x) S 1 2"));
    }

    @Test
    void forkLineIsFoundAmongOtherOutputAndDividedByHandoffs() {
        HandoffCpu.Fork f = HandoffCpu.parse(List.of("[dprof] agent started", "handoff-cpu 1000 51000 26000 50", "bye"));
        assertEquals(new HandoffCpu.Fork(1000, 51000, 26000, 50), f);
        assertEquals(51.0, f.appPerHandoff());
        assertEquals(26.0, f.drainerPerHandoff());
        assertEquals(50.0, f.drainerFaultsPerThousand());
    }

    @Test
    void forkWithoutDrainerHasNoDrainerFigure() {
        HandoffCpu.Fork f = HandoffCpu.parse(List.of("handoff-cpu 4 100 -1 -1"));
        assertTrue(Double.isNaN(f.drainerPerHandoff()));
        assertTrue(Double.isNaN(f.drainerFaultsPerThousand()));
        assertEquals(25.0, f.appPerHandoff());
    }

    @Test
    void missingOrBadForkLineIsAnError() {
        assertThrows(IllegalArgumentException.class, () -> HandoffCpu.parse(List.of("Exception in thread main")));
        assertThrows(IllegalArgumentException.class, () -> HandoffCpu.parse(List.of("handoff-cpu 0 10 10 0")));
        assertThrows(IllegalArgumentException.class, () -> HandoffCpu.parse(List.of("handoff-cpu 5 10 10")));
    }

    @Test
    void spreadIsMedianAndRangeOverForks() {
        HandoffCpu.Spread[] s = HandoffCpu.perHandoff(List.of(new HandoffCpu.Fork(10, 500, 300, 7),
                new HandoffCpu.Fork(10, 300, 100, 5), new HandoffCpu.Fork(10, 400, 200, 6)));
        assertEquals(new HandoffCpu.Spread(40, 30, 50), s[0]);
        assertEquals(new HandoffCpu.Spread(20, 10, 30), s[1]);
        assertEquals(new HandoffCpu.Spread(600, 500, 700), s[2]);
        assertEquals("40.0 (30.0–50.0)", s[0].toString());
    }

    @Test
    void evenCountMedianIsTheMeanOfTheMiddleTwoAndNoDrainerGivesNone() {
        HandoffCpu.Spread[] s = HandoffCpu.perHandoff(List.of(new HandoffCpu.Fork(1, 10, -1, -1),
                new HandoffCpu.Fork(1, 20, -1, -1)));
        assertEquals(15.0, s[0].median());
        assertTrue(Double.isNaN(s[1].median()));
        assertEquals("–", s[1].toString());
    }
}
