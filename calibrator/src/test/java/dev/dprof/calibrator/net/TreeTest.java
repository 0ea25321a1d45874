package dev.dprof.calibrator.net;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** DProf §4.1's tree: C joins B, B joins A; each zero is true against the node's own parent. */
class TreeTest {
    @Test
    void aChainOfThreeCalibratesEachNodeAgainstItsParent(@TempDir Path dir) throws Exception {
        TruthClock a = new TruthClock("rate=1.0,offset=0");
        TruthClock b = new TruthClock("rate=1.3,offset=1000000");
        TruthClock c = new TruthClock("rate=1.4,offset=-1000000,drift-ppm=300,drift-period-s=1");
        try (CalibrationServer serverA = CalibrationServer.start(0, a.clock, Optional.empty(), line -> { })) {
            CalibrationNode nodeB = CalibrationNode.join(Nodes.settings(serverA.port(), dir.resolve("b"), 200, 32, 500,
                    Optional.empty()), b.clock);
            CalibrationNode nodeC;
            try (CalibrationServer serverB = CalibrationServer.start(0, b.clock, Optional.empty(), line -> { })) {
                nodeC = CalibrationNode.join(Nodes.settings(serverB.port(), dir.resolve("c"), 200, 32, 500,
                        Optional.empty()), c.clock);
                assertEquals(b.clock.domainId(), nodeC.parentDomainId());
                nodeB.start();
                nodeC.start();
                Nodes.await("3 zeros each", () -> nodeB.count(CalibrationNode.Count.ZEROS) >= 3
                        && nodeC.count(CalibrationNode.Count.ZEROS) >= 3);
                nodeC.stop();
            }
            nodeB.stop();
            Nodes.assertFileSound(nodeB, b, a);
            Nodes.assertFileSound(nodeC, c, b);
        }
    }
}
