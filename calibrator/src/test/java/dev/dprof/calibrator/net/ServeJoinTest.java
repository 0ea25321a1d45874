package dev.dprof.calibrator.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.format.calibration.DomainCalibration;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A reference and a node in one JVM, each with its own simulated clock, over loopback. */
class ServeJoinTest {
    @Test
    void aNodeWritesTrueZerosAgainstItsParentUntilStopped(@TempDir Path dir) throws Exception {
        TruthClock parent = new TruthClock("rate=1.25,offset=-123456789,drift-ppm=200,drift-period-s=1");
        TruthClock node = new TruthClock("rate=1.4,offset=987654321");
        try (CalibrationServer server = CalibrationServer.start(0, parent.clock, Optional.empty(), line -> { })) {
            CalibrationNode n = CalibrationNode.join(Nodes.settings(server.port(), dir, 250, 32, 1000, Optional.empty()),
                    node.clock);
            assertEquals(parent.clock.domainId(), n.parentDomainId());
            n.start();
            Nodes.await("8 epochs (about 2 s)", () -> n.count(CalibrationNode.Count.ZEROS) >= 8);
            n.stop();
            DomainCalibration cal = Nodes.assertFileSound(n, node, parent);
            assertTrue(cal.zeros().size() >= 9, "8 periodic epochs and the final one");
            assertFalse(n.failure().isPresent());
            assertEquals(0, n.count(CalibrationNode.Count.REJECTED));
        }
    }

    @Test
    void everyRoundTripOfAnEpochIsTrueNotOnlyTheTightest(@TempDir Path dir) throws Exception {
        TruthClock parent = new TruthClock("rate=1.0,offset=5");
        TruthClock node = new TruthClock("rate=1.35,offset=-5,drift-ppm=500,drift-period-s=0.5");
        SharedKey key = SharedKey.of("serve-join-shared-key".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        try (CalibrationServer server = CalibrationServer.start(0, parent.clock, Optional.of(key), line -> { });
             CalibrationNode n = CalibrationNode.join(Nodes.settings(server.port(), dir, 60_000, 64, 1000,
                     Optional.of(key)), node.clock)) {
            for (int epoch = 0; epoch < 5; epoch++) {
                Burst b = n.burst();
                assertEquals(epoch, b.epoch());
                assertFalse(b.roundTrips().isEmpty());
                b.roundTrips().forEach(z -> TruthClock.assertSound(z, node, parent));
                assertTrue(b.tightest().orElseThrow().widthTicks() <= b.medianWidthTicks());
            }
        }
    }

    @Test
    void aBaseThatDoesNotAnswerIsARetryableOneLineFailure(@TempDir Path dir) throws Exception {
        TruthClock node = new TruthClock("rate=1.3");
        try (java.net.DatagramSocket silent = new java.net.DatagramSocket(0)) {
            JoinException e = org.junit.jupiter.api.Assertions.assertThrows(JoinException.class,
                    () -> CalibrationNode.join(Nodes.settings(silent.getLocalPort(), dir, 1000, 4, 50, Optional.empty()),
                            node.clock));
            assertTrue(e.retryable());
            assertTrue(e.getMessage().startsWith("no answer from calibration base 127.0.0.1:" + silent.getLocalPort()),
                    e.getMessage());
        }
    }

    @Test
    void aBaseInTheSameDomainOrAnUnwritableDirectoryIsRefused(@TempDir Path dir) throws Exception {
        TruthClock clock = new TruthClock("rate=1.3");
        try (CalibrationServer server = CalibrationServer.start(0, clock.clock, Optional.empty(), line -> { })) {
            JoinException same = org.junit.jupiter.api.Assertions.assertThrows(JoinException.class,
                    () -> CalibrationNode.join(Nodes.settings(server.port(), dir, 1000, 4, 50, Optional.empty()),
                            clock.clock));
            assertFalse(same.retryable());
            assertTrue(same.getMessage().contains("own clock domain"), same.getMessage());
            Path file = java.nio.file.Files.writeString(dir.resolve("not-a-dir"), "x");
            JoinException unwritable = org.junit.jupiter.api.Assertions.assertThrows(JoinException.class,
                    () -> CalibrationNode.join(Nodes.settings(server.port(), file, 1000, 4, 50, Optional.empty()),
                            new TruthClock("rate=1.2").clock));
            assertFalse(unwritable.retryable());
            assertTrue(unwritable.getMessage().contains("not-a-dir"), unwritable.getMessage());
        }
    }
}
