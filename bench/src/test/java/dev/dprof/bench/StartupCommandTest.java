package dev.dprof.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import org.junit.jupiter.api.Test;

class StartupCommandTest {
    private static final String STATUS = String.join("\n",
            "Name:\tjava", "VmPeak:\t 3593772 kB", "VmSize:\t 3527212 kB", "VmHWM:\t   41236 kB",
            "VmRSS:\t   41236 kB", "Threads:\t19", "");

    @Test
    void readsThePeakResidentSetOfProcStatus() throws IOException {
        assertEquals(41236, StartupProgram.vmHwmKib(STATUS));
    }

    @Test
    void aStatusWithoutVmHwmOrInOtherUnitsIsRefusedWithTheLine() {
        IOException none = assertThrows(IOException.class, () -> StartupProgram.vmHwmKib("Name:\tjava\nVmRSS:\t 1 kB\n"));
        assertTrue(none.getMessage().contains("no VmHWM"), none.getMessage());
        IOException unit = assertThrows(IOException.class, () -> StartupProgram.vmHwmKib("VmHWM:\t 12 MB\n"));
        assertTrue(unit.getMessage().contains("VmHWM:\t 12 MB"), unit.getMessage());
    }

    @Test
    void readsGnuTimesLastLineEvenAfterAFailureNote() throws IOException {
        StartupCommand.Rusage u = StartupCommand.parseRusage("0.84 1.20 0.15 124456\n");
        assertEquals(1.20, u.userSec(), 1e-12);
        assertEquals(0.15, u.systemSec(), 1e-12);
        assertEquals(124456, u.maxRssKib());
        assertEquals(38560, StartupCommand.parseRusage("Command exited with non-zero status 1\n0.03 0.01 0.01 38560\n")
                .maxRssKib());
        IOException e = assertThrows(IOException.class, () -> StartupCommand.parseRusage("0.84 1.2 124456\n"));
        assertTrue(e.getMessage().contains("0.84 1.2 124456"), e.getMessage());
    }

    @Test
    void findsTheProgramsLineAmongOthers() throws IOException {
        String out = "hello\n" + StartupProgram.MAIN_LINE + "123456789\n" + StartupProgram.HWM_LINE + "4096\n";
        assertEquals(123456789L, StartupCommand.lineValue(out, StartupProgram.MAIN_LINE));
        assertEquals(4096L, StartupCommand.lineValue(out, StartupProgram.HWM_LINE));
        assertThrows(IOException.class, () -> StartupCommand.lineValue("hello\n", StartupProgram.MAIN_LINE));
        assertThrows(IOException.class, () -> StartupCommand.lineValue(StartupProgram.MAIN_LINE + "12x\n",
                StartupProgram.MAIN_LINE));
    }

    @Test
    void mediansOfOddAndEvenCountsAndNone() {
        assertEquals(2.0, StartupCommand.median(new double[] {3, 1, 2}), 1e-12);
        assertEquals(2.5, StartupCommand.median(new double[] {4, 1, 3, 2}), 1e-12);
        assertTrue(Double.isNaN(StartupCommand.median(new double[0])));
    }
}
