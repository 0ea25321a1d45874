package dev.dprof.consolidator.analysis.causal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.synthetic.TinyProfile;
import dev.dprof.format.EventKind;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The bounds Coz reports at progress points — throughput of each point, latency of a transaction
 * region — contain their truth on random two-process traces: a producer works, sends and passes a
 * progress point; a consumer waits for each message, works and passes its own. True times are
 * exact (clocks at the reference's rate, ticks = true times), and every event's interval is a
 * random one around its truth, as a calibration would give it.
 */
class ProgressPropertiesTest {
    private record Event(int stream, EventKind kind, int region, long t, long key) {
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5})
    void throughputAndLatencyBoundsContainTheirTruth(long seed, @TempDir Path dir) throws Exception {
        SplittableRandom random = new SplittableRandom(seed);
        TinyProfile p = new TinyProfile(dir, true);
        int producer = p.stream(p.process("1/1", "1/1", 0));
        int consumer = p.stream(p.process("1/1", "1/1", 0));
        int work = p.region("work");
        int use = p.region("use");
        int send = p.region("send", "send");
        int receive = p.region("receive", "receive");
        int made = p.region("made", "progress");
        int used = p.region("used", "progress");
        List<Event> events = new ArrayList<>();
        long tp = 0;
        long tc = 0;
        for (int i = 0; i < 20; i++) {
            events.add(new Event(producer, EventKind.ENTER, work, tp, 0));
            tp += 50 + random.nextInt(200);
            events.add(new Event(producer, EventKind.EXIT, work, tp, 0));
            events.add(new Event(producer, EventKind.SEND, send, ++tp, i));
            long arrives = tp + 20 + random.nextInt(40);
            events.add(new Event(producer, EventKind.PROGRESS, made, ++tp, 0));
            tc = Math.max(tc + 1, arrives);
            events.add(new Event(consumer, EventKind.RECEIVE, receive, tc, i));
            events.add(new Event(consumer, EventKind.ENTER, use, ++tc, 0));
            tc += 30 + random.nextInt(150);
            events.add(new Event(consumer, EventKind.EXIT, use, tc, 0));
            events.add(new Event(consumer, EventKind.PROGRESS, used, ++tc, 0));
        }
        // The causal order: by true time, a producer's event first on ties (a send precedes its receive).
        events.sort(Comparator.comparingLong(Event::t).thenComparingInt(Event::stream));
        for (Event e : events) {
            long lo = e.t() - random.nextInt(25);
            long hi = e.t() + random.nextInt(25);
            p.event(e.stream(), e.kind(), e.region(), e.t(), lo, hi, e.t(), e.kind() == EventKind.PROGRESS ? 1 : 9,
                    e.key());
        }
        Profile profile = p.write();
        for (String region : new String[] {"work", "use"}) {
            for (double f : new double[] {0.25, 0.6, 1.0}) {
                WhatIf.Prediction pr = WhatIf.predict(profile, region, List.of(f), null, null, "use").predictions().get(0);
                assertTrue(pr.lo() <= pr.truth() && pr.truth() <= pr.hi(), "span " + pr);
                assertEquals(2, pr.progress().size());
                for (WhatIf.ProgressSpeedup s : pr.progress()) {
                    assertTrue(s.lo() <= s.truth() && s.truth() <= s.hi(), region + " × " + f + ": " + s);
                }
                WhatIf.LatencySpeedup l = pr.latency();
                assertTrue(l.lo() <= l.truth() && l.truth() <= l.hi(), region + " × " + f + ": " + l);
            }
        }
    }
}
