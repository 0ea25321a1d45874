package dev.dprof.calibrator.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The rate limit on a clock the test moves by hand: a burst, then one line a second, drops counted. */
class RateLimitedLogTest {
    @Test
    void aBurstPassesThenOneLineASecondAndTheDropsAreSaid() {
        List<String> out = new ArrayList<>();
        long[] now = {0};
        RateLimitedLog log = new RateLimitedLog(out::add, () -> now[0]);
        for (int i = 0; i < 100; i++) {
            log.accept("line " + i);
        }
        assertEquals(RateLimitedLog.BURST, out.size());
        assertEquals(100 - RateLimitedLog.BURST, log.dropped());
        now[0] += RateLimitedLog.REFILL_NANOS / 2;
        log.accept("too early");
        assertEquals(RateLimitedLog.BURST, out.size());
        now[0] += RateLimitedLog.REFILL_NANOS / 2;
        log.accept("after a second");
        assertEquals(RateLimitedLog.BURST + 1, out.size());
        String last = out.get(out.size() - 1);
        assertTrue(last.startsWith("after a second (91 earlier lines dropped"), last);
        assertEquals(0, log.dropped());
        now[0] += 1000 * RateLimitedLog.REFILL_NANOS;
        for (int i = 0; i < 2 * RateLimitedLog.BURST; i++) {
            log.accept("again " + i);
        }
        assertEquals(2 * RateLimitedLog.BURST + 1, out.size(), "the bucket holds at most a burst");
    }
}
