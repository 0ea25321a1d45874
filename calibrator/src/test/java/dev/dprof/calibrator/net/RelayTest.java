package dev.dprof.calibrator.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.format.calibration.DomainCalibration;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Calibration through {@link UdpRelay}: a bad path widens zeros, but never makes one false. */
class RelayTest {
    @Test
    void lossDuplicationAndJitterNeverPairAReplyWithTheWrongPing(@TempDir Path dir) throws Exception {
        TruthClock parent = new TruthClock("rate=1.25,offset=31337");
        TruthClock node = new TruthClock("rate=1.33,offset=-31337,drift-ppm=100,drift-period-s=2");
        try (CalibrationServer server = CalibrationServer.start(0, parent.clock, Optional.empty(), line -> { });
             UdpRelay relay = UdpRelay.start(new UdpRelay.Settings(0,
                     new InetSocketAddress(InetAddress.getLoopbackAddress(), server.port()), 300, 3000, 0.3, 0.3,
                     UdpRelay.Direction.BOTH, 42))) {
            // A timeout shorter than the jitter: many replies arrive late, during a later ping's wait.
            CalibrationNode n = CalibrationNode.join(Nodes.settings(relay.port(), dir, 60_000, 64, 4, Optional.empty()),
                    node.clock);
            int answered = 0;
            for (int epoch = 0; epoch < 10; epoch++) {
                Burst b = n.burst();
                answered += b.roundTrips().size();
                b.roundTrips().forEach(z -> TruthClock.assertSound(z, node, parent));
            }
            n.stop();
            assertTrue(answered > 0, n.counts());
            DomainCalibration cal = Nodes.assertFileSound(n, node, parent);
            assertTrue(cal.zeros().size() > 0);
            assertTrue(relay.count(UdpRelay.Count.DROPPED) > 0, relay.counts());
            assertTrue(relay.count(UdpRelay.Count.DUPLICATED) > 0, relay.counts());
        }
    }

    @Test
    void delayOnOneDirectionOnlyStillGivesTrueZeros(@TempDir Path dir) throws Exception {
        TruthClock parent = new TruthClock("rate=1.1,offset=1");
        TruthClock node = new TruthClock("rate=1.2,offset=2");
        try (CalibrationServer server = CalibrationServer.start(0, parent.clock, Optional.empty(), line -> { });
             UdpRelay relay = UdpRelay.start(new UdpRelay.Settings(0,
                     new InetSocketAddress(InetAddress.getLoopbackAddress(), server.port()), 2000, 0, 0, 0,
                     UdpRelay.Direction.FORWARD, 1));
             CalibrationNode n = CalibrationNode.join(Nodes.settings(relay.port(), dir, 60_000, 16, 1000,
                     Optional.empty()), node.clock)) {
            Burst b = n.burst();
            assertEquals(16, b.roundTrips().size());
            b.roundTrips().forEach(z -> {
                TruthClock.assertSound(z, node, parent);
                assertTrue(z.widthTicks() >= 2_000_000, "the forward delay is inside every round trip");
            });
        }
    }
}
