package dev.dprof.calibrator.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.dprof.format.calibration.CalibrationFile;
import dev.dprof.format.calibration.DomainCalibration;
import dev.dprof.format.calibration.Zero;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/** Settings and checks shared by the network tests. Waits are for conditions; the deadlines only stop a hung test. */
final class Nodes {
    static final long DEADLINE_MILLIS = 60_000;

    private Nodes() {
    }

    static NodeSettings settings(int port, Path out, long intervalMillis, int burst, long timeoutMillis,
                                 Optional<SharedKey> key) {
        return new NodeSettings(new HostPort("127.0.0.1", port), out, intervalMillis, burst, 200, timeoutMillis, key,
                line -> { }, line -> { });
    }

    static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long end = System.nanoTime() + DEADLINE_MILLIS * 1_000_000;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) {
                fail("gave up waiting for " + what);
            }
            Thread.sleep(10);
        }
    }

    /** Reads a node's file back and checks it names its parent, ended, and holds only true zeros. */
    static DomainCalibration assertFileSound(CalibrationNode node, TruthClock nodeClock, TruthClock parentClock)
            throws Exception {
        DomainCalibration cal = CalibrationFile.read(node.file());
        assertEquals(nodeClock.clock.domainId(), cal.domainId());
        assertEquals(Optional.of(parentClock.clock.domainId()), cal.parentDomainId());
        assertTrue(cal.complete(), "the file ends with 'end'");
        assertEquals(node.count(CalibrationNode.Count.ZEROS), cal.zeros().size());
        int lastEpoch = -1;
        for (Zero z : cal.zeros()) {
            assertTrue(z.epoch() > lastEpoch, "epochs increase");
            lastEpoch = z.epoch();
            TruthClock.assertSound(z, nodeClock, parentClock);
        }
        return cal;
    }
}
