package dev.dprof.consolidator.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** λ is a floor: a network floor replaces the fastest message's latency only when it lies below it. */
class BaselinesTest {
    @Test
    void aNetworkFloorIsUsedOnlyBelowTheFastestMessage() {
        Baselines.Derived fromMessages = new Baselines.Derived(Map.of(), Map.of(), null, 100, 100, "fastest message");
        Baselines.Derived lower = fromMessages.withNetworkFloor(60, "network");
        assertEquals(60, lower.minimumLatencyTicks());
        assertEquals("network", lower.minimumLatencySource());
        assertEquals(100, lower.fastestMessageTicks());
        Baselines.Derived higher = fromMessages.withNetworkFloor(140, "network");
        assertEquals(100, higher.minimumLatencyTicks());
        assertEquals("fastest message", higher.minimumLatencySource());
    }
}
