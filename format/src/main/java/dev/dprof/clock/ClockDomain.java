package dev.dprof.clock;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Names a clock domain the same way in the agent and in the calibrator, so the consolidator
 * pairs every process with its calibration without the user's help (DESIGN.md "Clocks"): the
 * machine's boot id, the counter, and the simulated-clock parameters when simulated.
 */
public final class ClockDomain {
    private static final Path BOOT_ID = Path.of("/proc/sys/kernel/random/boot_id");

    private ClockDomain() {
    }

    public static String id(ClockSource source, Optional<SimulatedClock> sim) {
        String counter = source == ClockSource.NANOTIME ? "nanotime" : "tsc";
        return counter + "@" + bootId() + sim.map(s -> "/sim(" + s.spec() + ")").orElse("");
    }

    /** The kernel's boot id: the same for every process on this machine until it reboots. */
    public static String bootId() {
        try {
            return Files.readString(BOOT_ID).trim();
        } catch (IOException | RuntimeException e) {
            return "host-" + HostName.get();
        }
    }
}
