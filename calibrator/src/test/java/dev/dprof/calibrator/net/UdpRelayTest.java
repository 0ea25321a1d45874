package dev.dprof.calibrator.net;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import org.junit.jupiter.api.Test;

class UdpRelayTest {
    private static UdpRelay.Settings settings(int target, double loss, double duplicate) {
        return new UdpRelay.Settings(0, new InetSocketAddress(InetAddress.getLoopbackAddress(), target), 0, 0, loss,
                duplicate, UdpRelay.Direction.BOTH, 3);
    }

    @Test
    void forwardsBothWaysAndDuplicatesOnRequest() throws Exception {
        try (DatagramSocket echo = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
             UdpRelay relay = UdpRelay.start(settings(echo.getLocalPort(), 0, 1));
             DatagramSocket client = new DatagramSocket()) {
            client.setSoTimeout((int) Nodes.DEADLINE_MILLIS);
            echo.setSoTimeout((int) Nodes.DEADLINE_MILLIS);
            client.connect(InetAddress.getLoopbackAddress(), relay.port());
            client.send(new DatagramPacket(new byte[] {1, 2, 3}, 3));
            byte[] buf = new byte[16];
            for (int copy = 0; copy < 2; copy++) {
                DatagramPacket p = new DatagramPacket(buf, buf.length);
                echo.receive(p);
                assertArrayEquals(new byte[] {1, 2, 3}, java.util.Arrays.copyOf(buf, p.getLength()));
                if (copy == 0) {
                    echo.send(new DatagramPacket(new byte[] {9}, 1, p.getSocketAddress()));
                }
            }
            for (int copy = 0; copy < 2; copy++) {
                DatagramPacket p = new DatagramPacket(buf, buf.length);
                client.receive(p);
                assertEquals(1, p.getLength());
                assertEquals(9, buf[0]);
            }
            assertEquals(2, relay.count(UdpRelay.Count.DUPLICATED), relay.counts());
        }
    }

    @Test
    void totalLossDeliversNothing() throws Exception {
        try (DatagramSocket target = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
             UdpRelay relay = UdpRelay.start(settings(target.getLocalPort(), 1, 0));
             DatagramSocket client = new DatagramSocket()) {
            client.connect(InetAddress.getLoopbackAddress(), relay.port());
            for (int i = 0; i < 10; i++) {
                client.send(new DatagramPacket(new byte[] {(byte) i}, 1));
            }
            Nodes.await("10 drops", () -> relay.count(UdpRelay.Count.DROPPED) == 10);
            target.setSoTimeout(50);
            assertThrows(SocketTimeoutException.class, () -> target.receive(new DatagramPacket(new byte[4], 4)));
            assertEquals(0, relay.count(UdpRelay.Count.FORWARDED));
        }
    }

    @Test
    void badSettingsAreRefused() {
        InetSocketAddress t = new InetSocketAddress(InetAddress.getLoopbackAddress(), 9);
        assertThrows(IllegalArgumentException.class,
                () -> new UdpRelay.Settings(0, t, -1, 0, 0, 0, UdpRelay.Direction.BOTH, 0));
        assertThrows(IllegalArgumentException.class,
                () -> new UdpRelay.Settings(0, t, 0, 0, 1.5, 0, UdpRelay.Direction.BOTH, 0));
        assertThrows(IllegalArgumentException.class,
                () -> new UdpRelay.Settings(0, t, 0, 0, 0, Double.NaN, UdpRelay.Direction.BOTH, 0));
    }
}
