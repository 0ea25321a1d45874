package dev.dprof.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class JitWarmupTest {
    @Test
    void runsTheFilterOncePerRoundWithinItsBounds() {
        AtomicInteger filterRuns = new AtomicInteger();
        int rounds = JitWarmup.run(filterRuns::incrementAndGet);
        assertTrue(rounds >= 1 && rounds <= JitWarmup.MAX_ROUNDS, "rounds: " + rounds);
        assertEquals(rounds, filterRuns.get(), "the filter runs at the start of every round");
    }

    @Test
    void aFailingFilterEndsTheWarmUpWithoutThrowing() {
        int rounds = JitWarmup.run(() -> {
            throw new IllegalStateException("filter broke");
        });
        assertEquals(0, rounds);
    }
}
