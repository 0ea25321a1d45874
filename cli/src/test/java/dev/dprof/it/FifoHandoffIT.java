package dev.dprof.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.api.DProf;
import dev.dprof.format.EventKind;
import dev.dprof.format.HandoffRegions;
import dev.dprof.format.RegionInfo;
import dev.dprof.it.ForkedJvm.Event;
import dev.dprof.it.ForkedJvm.Output;
import dev.dprof.it.ForkedJvm.Recording;
import dev.dprof.it.app.FifoHandoffApp;
import dev.dprof.testsupport.Jdks;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The FIFO queues keyed by position, with the real agent jar on JDK 17 and on 25: through each of
 * {@link FifoHandoffApp}'s queues a producer puts {@value #ITEMS} items (poison pills among them)
 * while a consumer takes and a third thread removes from the middle, drains, clears, removes by a
 * predicate (and on the deque puts at the head, takes from the tail, appends in bulk). The app marks
 * each put with its item's value just before it and each of the consumer's takes with the value it
 * took just after it, so every recorded take is checked against the element it really returned:
 * its key is the key of that element's own put — never another's — and no key is taken twice; and
 * every take that recorded nothing is counted in the exit line. (The unbounded queue grows deep
 * enough that a removal from its middle may lie beyond the walk the agent makes to find it, so
 * dropped edges are expected there, counted.)
 */
class FifoHandoffIT {
    static final int ITEMS = 20_000;
    static final List<String> QUEUES = List.of("array", "linked", "bounded", "deque");
    private static final Pattern SUMMARY = Pattern.compile("dprof: handoffs: .*, (\\d+) takes whose position .*");

    @Test
    void everyTakeRecordsItsOwnElementsPutOnJdk17(@TempDir Path tmp) throws Exception {
        runAndCheck(tmp, Path.of(System.getProperty("java.home")));
    }

    @Test
    void everyTakeRecordsItsOwnElementsPutOnJdk21OrLater(@TempDir Path tmp) throws Exception {
        runAndCheck(tmp, Jdks.modern());
    }

    private static void runAndCheck(Path tmp, Path javaHome) throws Exception {
        Path out = tmp.resolve("out");
        Output output = ForkedJvm.app(FifoHandoffApp.class, tmp).withClasspathOf(DProf.class).javaHome(javaHome)
                .agent(ForkedJvm.config(tmp, ""), out).args(ITEMS).runOk();
        for (String q : QUEUES) {
            assertTrue(output.stdout().contains("fifo " + q + " done"), () -> q + " did not finish\n" + output);
        }
        Matcher summary = output.dprofLines().stream().map(SUMMARY::matcher).filter(Matcher::matches).findFirst()
                .orElseThrow(() -> new AssertionError("no handoff summary line\n" + output));
        long positionLost = Long.parseLong(summary.group(1));
        Recording run = Recording.readOnly(out);
        run.requireCleanEnd();
        long unrecorded = 0;
        for (String q : QUEUES) {
            unrecorded += check(run, q);
        }
        long u = unrecorded;
        assertTrue(unrecorded <= positionLost, () -> u + " of the consumers' takes recorded nothing, but only "
                + positionLost + " were counted as dropped");
    }

    /** Checks one queue; returns how many of its consumer's takes recorded nothing. */
    private static int check(Recording run, String queue) {
        String site = " allocated in FifoHandoffApp." + queue + ":";
        List<String> regions = run.regions().values().stream().map(RegionInfo::name)
                .filter(n -> n.startsWith("queue: ") && n.contains(site)).toList();
        assertEquals(1, regions.size(), () -> "regions of " + queue + ": " + run.regions().values());
        String region = regions.get(0);

        // The producer: each marker names the item of the put that follows it.
        Map<Long, Long> valueOfKey = new HashMap<>();
        Long marked = null;
        for (Event e : run.thread("producer-" + queue)) {
            if (e.kind() == EventKind.SEND) {
                marked = e.b();
            } else if (e.kind() == EventKind.HANDOFF_PUT && region.equals(e.region())) {
                assertNotNull(marked, () -> queue + ": a put without its marker " + e);
                assertEquals(null, valueOfKey.put(e.b(), marked), () -> queue + ": key put twice " + e);
                marked = null;
            }
        }
        assertEquals(ITEMS, valueOfKey.size(), () -> queue + ": every put is recorded");

        // Every take of the queue, on any thread: one put with its key, and taken once.
        Set<Long> taken = new HashSet<>();
        for (Event e : run.events(region, EventKind.HANDOFF_TAKE)) {
            if ((e.a() & HandoffRegions.BACK_PRESSURE) == 0) {
                assertTrue(valueOfKey.containsKey(e.b()), () -> queue + ": a take without a put " + e);
                assertTrue(taken.add(e.b()), () -> queue + ": key taken twice " + e);
            }
        }

        // The consumer: the take right before each marker is the marked item's.
        int paired = 0;
        int takes = 0;
        Event take = null;
        for (Event e : run.thread("consumer-" + queue)) {
            if (e.kind() == EventKind.HANDOFF_TAKE && region.equals(e.region())
                    && (e.a() & HandoffRegions.BACK_PRESSURE) == 0) {
                take = e;
            } else if (e.kind() == EventKind.SEND) {
                takes++;
                if (take != null) {
                    long put = valueOfKey.get(take.b());
                    long took = e.b();
                    Event t = take;
                    assertTrue(took == 0 ? put < 0 : put == took,
                            () -> queue + ": take " + t + " of item " + took + " recorded the put of item " + put);
                    paired++;
                    take = null;
                }
            }
        }
        int p = paired;
        int t = takes;
        if (!queue.equals("linked")) {
            // Bounded to 8: every removal from the middle is found; only windows and bulk removals drop edges.
            assertTrue(paired > takes / 2, () -> queue + ": only " + p + " of " + t + " takes recorded");
        }
        System.err.println("FifoHandoffIT: " + queue + ": " + paired + " of " + takes + " takes recorded and checked, "
                + taken.size() + " takes of " + ITEMS + " puts on all threads");
        return takes - paired;
    }
}
