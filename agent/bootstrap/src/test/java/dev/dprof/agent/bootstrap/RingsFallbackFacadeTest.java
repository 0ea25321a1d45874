package dev.dprof.agent.bootstrap;

import dev.dprof.format.EventCodes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Rings touched before RingConfig.init: the choice is already frozen, and it is the safe one. */
class RingsFallbackFacadeTest {
    @Test
    void earlyUseFallsBackToJavaRingsAndSaysSo() throws Exception {
        assertFalse(Rings.NATIVE);
        String line = RingConfig.init(true, RingConfig.CLOCK_RDTSC, 1024);
        assertEquals("dprof: rings were used before RingConfig.init; probes use System.nanoTime", line);
        assertEquals("nanoTime", RingConfig.clockSource());

        Thread t = new Thread(() -> Rings.record(EventCodes.header(10, 5), 7, 8), "fallback-thread");
        t.start();
        t.join();
        Collector c = new Collector();
        Rings.drain(c, ByteBuffer.allocateDirect(1024));
        List<Slot> ev = c.of(t.getId());
        assertEquals(3, ev.size());
        assertEquals(EventCodes.THREAD_START, ev.get(0).kind());
        assertEquals(5, ev.get(1).region());
        assertEquals(8, ev.get(1).b());
        assertEquals(EventCodes.THREAD_END, ev.get(2).kind());
        assertEquals("fallback-thread", Rings.threadName(t.getId()));
    }

    @Test
    void heapScratchIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> Rings.drain(new Collector(), ByteBuffer.allocate(1024)));
    }
}
