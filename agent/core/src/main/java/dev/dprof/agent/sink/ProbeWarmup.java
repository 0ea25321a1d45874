package dev.dprof.agent.sink;

import dev.dprof.agent.bootstrap.Probes;
import dev.dprof.agent.bootstrap.Rings;
import dev.dprof.agent.bootstrap.TcpProbes;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * Every kind of probe the weaver can call, once per round: the drainer's warm-up runs them on its
 * own thread and drains their events into a scratch queue,
 * so the probes are compiled before the application runs them. Region 0 and a private connection
 * object, so nothing here touches the application's regions or sockets.
 *
 * <p>Now and then a round runs on a thread of its own that then ends, so that a thread's first
 * event (which creates its ring) is part of the profile the JIT compiles the probes with. Without
 * it C2 compiled that branch as never taken, and the first event of every application thread —
 * at the start of the application's run — threw the probes' compiled code away (an
 * {@code unstable_if} trap, seen in {@code -XX:+LogCompilation}) to be interpreted and compiled
 * again while the application ran.
 */
final class ProbeWarmup {
    /** Events one round records. */
    static final int EVENTS_PER_ROUND = 13;

    private static final InetSocketAddress LOCAL = new InetSocketAddress(InetAddress.getLoopbackAddress(), 1);
    private static final InetSocketAddress REMOTE = new InetSocketAddress(InetAddress.getLoopbackAddress(), 2);
    /** Stand-ins for a channel and a socket: their connections (ports 1 and 2) go to the scratch queue. */
    private final Object connection = new Object();
    private final Object socket = new Object();
    private final int maxRounds;

    /** @param maxRounds the most rounds recorded between two drains: a small part of a ring */
    ProbeWarmup(int maxRounds) {
        this.maxRounds = maxRounds;
    }

    int maxRounds() {
        return maxRounds;
    }

    /**
     * One round on a new thread, which ends before this returns. Its first event is recorded with
     * no payload, one or two ({@code variant} modulo 3): each of the rings' three record calls has
     * its own first-event branch.
     *
     * @return the thread's id: its ring's last events (its end, stamped as the thread exits, maybe
     *         after this returns) can reach a drain after the warm-up, which must drop them
     */
    long roundOnNewThread(int variant) throws InterruptedException {
        Thread t = new Thread(() -> {
            Rings.markThreadPrivate();
            switch (Math.floorMod(variant, 3)) {
                case 0 -> Probes.enter(0);
                case 1 -> Probes.enterInstance(0, variant);
                default -> Probes.send(0, 1, variant);
            }
            rounds(1);
        }, "dprof-warmup");
        t.setDaemon(true);
        t.start();
        t.join();
        return t.getId();
    }

    void rounds(int times) {
        for (int i = 0; i < times; i++) {
            Probes.enter(0);
            Probes.exit(0, false);
            Probes.enterInstance(0, i);
            Probes.exit(0, true);
            Probes.send(0, 1, i);
            Probes.receive(0, 1, i);
            Probes.barrierEnter(0, i, 2);
            Probes.barrierExit(0, i, 2);
            Probes.progress(0);
            TcpProbes.beforeChannelWrite(connection, LOCAL, REMOTE);
            TcpProbes.afterWrite(connection, 8);
            TcpProbes.afterChannelRead(connection, 8, LOCAL, REMOTE);
            TcpProbes.beforeSocketWrite(socket, 1, REMOTE.getAddress(), 2);
            TcpProbes.afterWrite(socket, 8);
            TcpProbes.afterSocketRead(socket, 8, 1, REMOTE.getAddress(), 2);
        }
    }
}
