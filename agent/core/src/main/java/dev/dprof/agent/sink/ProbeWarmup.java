package dev.dprof.agent.sink;

import dev.dprof.agent.bootstrap.Probes;
import dev.dprof.agent.bootstrap.TcpProbes;

/**
 * Every kind of probe the weaver can call, once per round: the drainer's warm-up runs them on its
 * own thread and drains their events into a scratch queue,
 * so the probes are compiled before the application runs them. Region 0 and a private connection
 * object, so nothing here touches the application's regions or sockets.
 */
final class ProbeWarmup {
    /** Events one round records. */
    static final int EVENTS_PER_ROUND = 11;

    private final Object connection = new Object();
    private final int maxRounds;

    /** @param maxRounds the most rounds recorded between two drains: a small part of a ring */
    ProbeWarmup(int maxRounds) {
        this.maxRounds = maxRounds;
    }

    int maxRounds() {
        return maxRounds;
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
            TcpProbes.beforeWrite(connection, 1, 2);
            TcpProbes.afterWrite(connection, 8);
            TcpProbes.afterRead(connection, 8, 2, 1);
        }
    }
}
