package dev.dprof.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The loopback floor is a one-way time on one clock: a byte is read after it was written. */
class LoopbackFloorTest {
    @Test
    void aOneWayTimeOnOneClockIsPositive() throws Exception {
        long floor = LoopbackFloor.minimumOneWayNanos(200);
        assertTrue(floor > 0, "a read cannot return before its write: " + floor + " ns");
    }
}
