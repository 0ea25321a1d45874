package dev.dprof.agent.sink;

import dev.dprof.agent.bootstrap.Probes;
import dev.dprof.agent.bootstrap.Rings;
import dev.dprof.clock.DomainClock;
import dev.dprof.format.EventCodes;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The cost of one probe, measured on the host for its header, and the event that repeats it at the
 * end of the run for traces: one place for the drainer thread and for the host's pump of a drainer
 * in another process.
 */
final class ProbeCost {
    static final int ROUNDS = 10;

    private ProbeCost() {
    }

    /**
     * The cost of one probe in ticks ×1024: the cheapest of a few rounds of enter/exit pairs on the
     * calling thread (whose ring is the agent's own), so JIT warm-up does not inflate it.
     */
    static long measure(DomainClock clock, int ringEvents) {
        int pairs = Math.max(16, Math.min(1500, ringEvents / (4 * ROUNDS)));
        long best = Long.MAX_VALUE;
        for (int round = 0; round < ROUNDS; round++) {
            long t0 = clock.now();
            for (int i = 0; i < pairs; i++) {
                Probes.enter(0);
                Probes.exit(0, false);
            }
            long t1 = clock.now();
            best = Math.min(best, t1 - t0);
        }
        return best * 1024 / (2L * pairs);
    }

    /**
     * The probe cost as one event slot stamped now: written after the last drain, before the weaving
     * summary (whose supplier releases the calibration's final exchange), so its tick lies inside the
     * calibrated span, as every event should. Stamped when the cost was measured, it came before the
     * calibration's first exchange, and was the one event of a normal run outside the span.
     */
    static ByteBuffer markerSlot(DomainClock clock, long costX1024) {
        ByteBuffer slot = ByteBuffer.allocateDirect(Rings.SLOT_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        slot.putLong(0, clock.raw());
        slot.putInt(8, EventCodes.PROBE_COST);
        slot.putLong(16, costX1024);
        slot.putLong(24, 2L * ROUNDS);
        return slot;
    }
}
