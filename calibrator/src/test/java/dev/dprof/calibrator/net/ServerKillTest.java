package dev.dprof.calibrator.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.format.calibration.DomainCalibration;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A parent that dies and comes back: the node counts misses, keeps going, and resumes. */
class ServerKillTest {
    @Test
    void theNodeSurvivesItsParentAndResumesWhenItReturns(@TempDir Path dir) throws Exception {
        TruthClock parent = new TruthClock("rate=1.2,offset=4242");
        TruthClock node = new TruthClock("rate=1.3,offset=-4242");
        CalibrationServer first = CalibrationServer.start(0, parent.clock, Optional.empty(), line -> { });
        int port = first.port();
        CalibrationNode n = CalibrationNode.join(Nodes.settings(port, dir, 100, 16, 50, Optional.empty()), node.clock);
        n.start();
        Nodes.await("2 zeros", () -> n.count(CalibrationNode.Count.ZEROS) >= 2);
        first.close();
        Nodes.await("2 misses", () -> n.count(CalibrationNode.Count.MISSES) >= 2);
        long zerosWhileDown = n.count(CalibrationNode.Count.ZEROS);
        CalibrationServer second = CalibrationServer.start(port, parent.clock, Optional.empty(), line -> { });
        try {
            Nodes.await("2 more zeros", () -> n.count(CalibrationNode.Count.ZEROS) >= zerosWhileDown + 2);
            n.stop();
        } finally {
            second.close();
        }
        assertFalse(n.failure().isPresent());
        DomainCalibration cal = Nodes.assertFileSound(n, node, parent);
        long epochs = n.count(CalibrationNode.Count.EPOCHS);
        assertEquals(epochs, cal.zeros().size() + n.count(CalibrationNode.Count.MISSES));
        assertTrue(cal.zeros().get(cal.zeros().size() - 1).epoch() < epochs, "missed epochs leave gaps");
    }
}
