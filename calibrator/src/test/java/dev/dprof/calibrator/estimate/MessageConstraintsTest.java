package dev.dprof.calibrator.estimate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.calibrator.estimate.SimulatedTruthTest.Machine;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Matched messages tighten the bounds and keep them sound, between parent and child and between siblings. */
class MessageConstraintsTest {
    private static final long HZ = 3_000_000_000L;
    private static final long START = 1L << 40;

    @Test
    void messagesTightenWithoutLosingTheTruth() throws CalibrationException {
        SplittableRandom random = new SplittableRandom(11);
        Machine ref = SimulatedTruthTest.machine("ref", random, 50);
        Machine x = SimulatedTruthTest.machine("x", random, 50);
        Machine y = SimulatedTruthTest.machine("y", random, 50);
        long span = 60 * HZ;
        CalibrationSet base = CalibrationSet.of(List.of(SimulatedTruthTest.file(ref, Optional.empty(), List.of()),
                SimulatedTruthTest.file(x, Optional.of(ref),
                        SimulatedTruthTest.zeros(x, ref, random, START, START + span, 10 * HZ, 300_000, 600_000)),
                SimulatedTruthTest.file(y, Optional.of(ref),
                        SimulatedTruthTest.zeros(y, ref, random, START, START + span, 10 * HZ, 300_000, 600_000))),
                new DriftModel.BoundedDrift(2.2));
        List<MatchedMessage> messages = new ArrayList<>();
        Machine[] m = {ref, x, y};
        for (long t = START; t < START + span; t += 2_000_000) {
            Machine from = m[random.nextInt(3)];
            Machine to = m[random.nextInt(3)];
            long latency = 5_000 + random.nextInt(20_000);
            messages.add(new MatchedMessage(from.id(), from.read(t), to.id(), to.read(t + latency)));
        }
        MessageConstraints.Result result = MessageConstraints.apply(base, messages, MessageConstraints.DEFAULT_ROUNDS);
        assertEquals(0, result.unused());
        for (Machine node : List.of(x, y)) {
            long[] before = SimulatedTruthTest.check(base, node, ref, new SplittableRandom(1), START, START + span, 10_000);
            long[] after = SimulatedTruthTest.check(result.calibration(), node, ref, new SplittableRandom(1),
                    START, START + span, 10_000);
            assertEquals(after[0], after[1], "contained with messages");
            assertEquals(before[0], before[1]);
            assertTrue(after[2] < before[2] / 2, "median width " + before[2] + " -> " + after[2]);
        }
    }
}
