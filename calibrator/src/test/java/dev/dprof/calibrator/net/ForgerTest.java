package dev.dprof.calibrator.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.format.calibration.DomainCalibration;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A forger on the path answers every ping before the parent, with the
 * parent's tick shifted by 2·10⁶: every zero it made would be false by the same amount, which no
 * check of the zeros against each other could see. With a key its pongs are rejected and the
 * node's zeros are the parent's, all true; without one every ping is answered twice, differently,
 * and the node keeps none of them. Either way no false zero reaches the file.
 */
class ForgerTest {
    private static final long SHIFT = 2_000_000;
    private static final SharedKey KEY = SharedKey.of("forger-test-key-of-32-bytes-0000".getBytes(StandardCharsets.UTF_8));

    @Test
    void withAKeyEveryForgedPongIsRejected(@TempDir Path dir) throws Exception {
        DomainCalibration cal = calibrateThroughForger(dir, Optional.of(KEY), (n, forger) -> {
            assertTrue(n.count(CalibrationNode.Count.REJECTED) >= forger.count(Forger.Count.FORGED) - 1, n.counts());
            assertEquals(0, n.count(CalibrationNode.Count.CONFLICTS), n.counts());
        });
        assertTrue(cal.zeros().size() >= 4, "true zeros from the parent: " + cal.zeros());
    }

    @Test
    void withoutAKeyNoPingAnsweredTwiceBecomesAZero(@TempDir Path dir) throws Exception {
        DomainCalibration cal = calibrateThroughForger(dir, Optional.empty(), (n, forger) -> {
            assertTrue(n.count(CalibrationNode.Count.CONFLICTS) > 0, n.counts());
            assertEquals(n.count(CalibrationNode.Count.EPOCHS), n.count(CalibrationNode.Count.MISSES), n.counts());
        });
        assertEquals(0, cal.zeros().size(), "every epoch is a miss: " + cal.zeros());
    }

    interface Check {
        void on(CalibrationNode node, Forger forger);
    }

    private static DomainCalibration calibrateThroughForger(Path dir, Optional<SharedKey> key, Check check)
            throws Exception {
        TruthClock parent = new TruthClock("rate=1.25,offset=4242");
        TruthClock node = new TruthClock("rate=1.33,offset=-4242");
        try (CalibrationServer server = CalibrationServer.start(0, parent.clock, key, line -> { });
             Forger forger = Forger.start(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.port()),
                     parent.clock, SHIFT)) {
            CalibrationNode n = CalibrationNode.join(Nodes.settings(forger.port(), dir, 60_000, 16, 100, key),
                    node.clock);
            for (int epoch = 0; epoch < 3; epoch++) {
                n.burst();
            }
            n.stop();
            assertTrue(forger.count(Forger.Count.FORGED) >= 3 * 16, forger.counts());
            assertEquals(forger.count(Forger.Count.FORGED), server.count(CalibrationServer.Count.PINGS),
                    "the parent answered every ping the forger answered: " + forger.counts() + " / " + server.counts());
            check.on(n, forger);
            // Every zero in the file is true: a forged a was never read by the parent's clock.
            return Nodes.assertFileSound(n, node, parent);
        }
    }
}
