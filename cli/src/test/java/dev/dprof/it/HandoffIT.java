package dev.dprof.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.format.EventKind;
import dev.dprof.format.HandoffRegions;
import dev.dprof.format.RegionInfo;
import dev.dprof.it.ForkedJvm.Event;
import dev.dprof.it.ForkedJvm.Output;
import dev.dprof.it.ForkedJvm.Recording;
import dev.dprof.it.app.HandoffApp;
import dev.dprof.testsupport.Jdks;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Handoffs recorded without configuration, with the real agent jar, on JDK 17 and on a JDK 21+
 * (25 here): {@link HandoffApp} hands {@value #ITEMS} distinct items through every covered queue,
 * a pool, a scheduled pool, fork/join, a future chain, threads and waited futures. Checked: the
 * program's output is the same as without the agent; every take has exactly one put with the same
 * (channel, key) in the process, stamped no later (joins too, among them the JVM's joins of the
 * shutdown hooks, which end beside the agent's last drain: {@code Rings.drainLast}); every back-pressure take exactly one take of
 * its queue with its key, on another thread, stamped no later, and a producer blocked on a full
 * {@code ArrayBlockingQueue} before each put records some; each queue's items all give an edge
 * unless the agent counted the edge as dropped; the drained items give none and are counted; the
 * poison pill's copies, in a queue keyed by position, give one edge each.
 */
class HandoffIT {
    static final int ITEMS = 1000;
    /** The queues {@link HandoffApp} relays {@value #ITEMS} items through, by the method that makes each. */
    static final List<String> RELAYS = List.of("linked", "array", "deque", "priority", "delay", "transfer",
            "synchronous");
    /** {@link HandoffApp.Sum}'s forks (63) and its root, and the chain's three async stages. */
    static final int FORK_JOIN_TASKS = 64 + 3;
    private static final Pattern SUMMARY = Pattern.compile("dprof: handoffs: (\\d+) elements put while .*?, (\\d+)"
            + " elements left their queue .*?, (\\d+) takes overlapped a resync, (\\d+) futures .*");

    @Test
    void everyTakeHasItsPutOnJdk17(@TempDir Path tmp) throws Exception {
        runAndCheck(tmp, Path.of(System.getProperty("java.home")));
    }

    @Test
    void everyTakeHasItsPutOnJdk21OrLater(@TempDir Path tmp) throws Exception {
        runAndCheck(tmp, Jdks.modern());
    }

    static void runAndCheck(Path tmp, Path javaHome) throws Exception {
        Output plain = ForkedJvm.app(HandoffApp.class, tmp).javaHome(javaHome).args(ITEMS).runOk();
        Path out = tmp.resolve("out");
        Output output = ForkedJvm.app(HandoffApp.class, tmp).javaHome(javaHome)
                .agent(ForkedJvm.config(tmp, ""), out).args(ITEMS).runOk();
        assertEquals(plain.stdout(), output.stdout(), "the program's output with the agent");
        Matcher summary = output.dprofLines().stream().map(SUMMARY::matcher).filter(Matcher::matches).findFirst()
                .orElseThrow(() -> new AssertionError("no handoff summary line\n" + output));
        long ambiguous = Long.parseLong(summary.group(1));
        long departed = Long.parseLong(summary.group(2));
        long takesDuringResync = Long.parseLong(summary.group(3));

        Recording run = Recording.readOnly(out);
        run.requireCleanEnd();
        Map<List<Long>, List<Event>> puts = new HashMap<>();
        for (Event e : run.events()) {
            if (e.kind() == EventKind.HANDOFF_PUT) {
                puts.computeIfAbsent(List.of(e.a(), e.b()), k -> new java.util.ArrayList<>()).add(e);
            }
        }
        Map<List<Long>, List<Event>> takes = new HashMap<>();
        for (Event e : run.events()) {
            if (e.kind() == EventKind.HANDOFF_TAKE && (e.a() & HandoffRegions.BACK_PRESSURE) == 0
                    && e.a() != HandoffRegions.WAITED) {
                takes.computeIfAbsent(List.of(e.a(), e.b()), k -> new java.util.ArrayList<>()).add(e);
            }
        }
        Map<String, Integer> matched = new HashMap<>();
        Map<String, Integer> pressure = new HashMap<>();
        for (Event take : run.events()) {
            if (take.kind() != EventKind.HANDOFF_TAKE) {
                continue;
            }
            if (take.a() == HandoffRegions.WAITED) {
                // A long wait (WaitsIT): never a handoff, never matched, but always where the application waited.
                assertTrue(take.region().startsWith(HandoffRegions.waitSiteName("")) && take.b()
                        >= HandoffRegions.WAIT_THRESHOLD_NANOS, () -> "a wait's region and length: " + take);
                continue;
            }
            if ((take.a() & HandoffRegions.BACK_PRESSURE) != 0) {
                // A put that waited for a take of its queue: exactly one such take, stamped no later.
                List<Event> freed = takes.getOrDefault(List.of(take.a() & ~HandoffRegions.BACK_PRESSURE, take.b()),
                        List.of());
                assertEquals(1, freed.size(), () -> "takes the back-pressure take " + take + " waited for: " + freed);
                assertTrue(freed.get(0).tick() <= take.tick(), () -> "take " + freed.get(0) + " after " + take);
                assertTrue(freed.get(0).thread() != take.thread(), () -> "waited for its own take: " + take);
                pressure.merge(take.region(), 1, Integer::sum);
                continue;
            }
            List<Event> its = puts.getOrDefault(List.of(take.a(), take.b()), List.of());
            assertEquals(1, its.size(), () -> "puts of the take " + take + ": " + its);
            assertTrue(its.get(0).tick() <= take.tick(), () -> "put " + its.get(0) + " after its take " + take);
            matched.merge(take.region(), 1, Integer::sum);
        }

        for (String r : run.regions().values().stream().map(RegionInfo::name).toList()) {
            if (r.startsWith("queue: ") || r.startsWith("executor: ") || r.startsWith("future: ")
                    || r.startsWith("thread: ")) {
                assertEquals(HandoffRegions.REGION_KIND, run.region(r).kind(), r);
            }
        }
        long relayed = 0;
        for (String method : RELAYS) {
            relayed += edges(run, matched, "HandoffApp." + method + ":");
        }
        long pooled = edges(run, matched, "HandoffApp.pool:");
        long scheduled = edges(run, matched, "HandoffApp.scheduled:");
        // Every item gives an edge, or a counted loss: its take overlapped a resync of its queue, or
        // its put was still blocked when a resync snapshot the queue (counted as departed, beside the
        // drained queue's items). Never more edges than items.
        long full = edges(run, matched, "HandoffApp.full:");
        long items = RELAYS.size() * ITEMS + (ITEMS - 1) + ITEMS + ITEMS / 5;
        long edges = relayed + pooled + scheduled + full;
        long departedBesidesDrained = departed - ITEMS;
        assertTrue(edges + takesDuringResync <= items && items <= edges + takesDuringResync + departedBesidesDrained,
                () -> "items " + items + ", edges " + matched + ", takes during a resync " + takesDuringResync
                        + ", departed beside the drained items " + departedBesidesDrained);

        long blocked = edges(run, pressure, "HandoffApp.full:");
        assertTrue(blocked >= 1 && blocked <= ITEMS / 5 - 1, () -> "back-pressure takes " + pressure);
        System.err.println("HandoffIT: back-pressure takes " + pressure + " (" + (ITEMS / 5 - 1) + " blocked puts on "
                + "the full queue)");

        // A LinkedBlockingQueue is keyed by position: the pill's two copies are two positions, each its own edge.
        assertEquals(3, edges(run, matched, "HandoffApp.pills:"), "the poison pill's copies, keyed by position");
        assertEquals(0, ambiguous, "no reference was put twice into a queue found again by reference");
        assertEquals(0, edges(run, matched, "HandoffApp.drained:"), "drained items are not taken");
        assertTrue(departed >= ITEMS, "drained items counted as departed: " + departed);

        assertEquals(FORK_JOIN_TASKS, matched.getOrDefault(HandoffRegions.siteName(HandoffRegions.Kind.EXECUTOR,
                "ForkJoinPool", "(any pool)"), 0), () -> "fork/join edges " + matched);
        for (String future : List.of("FutureTask", "CompletableFuture")) {
            String region = HandoffRegions.siteName(HandoffRegions.Kind.FUTURE, future, "(any site)");
            assertTrue(matched.getOrDefault(region, 0) >= 1, () -> future + ": a waiting get's edge " + matched);
        }
        checkThreads(run);
        checkMonitors(run, output);
    }

    /** Matched takes of the one queue region whose site starts with {@code site}. */
    private static long edges(Recording run, Map<String, Integer> matched, String site) {
        List<String> regions = run.regions().values().stream().map(RegionInfo::name)
                .filter(n -> n.startsWith("queue: ") && n.contains(" allocated in " + site)).toList();
        assertEquals(1, regions.size(), () -> "regions of " + site + ": " + run.regions().values());
        return matched.getOrDefault(regions.get(0), 0);
    }

    /**
     * Every wait of {@link HandoffApp.Turn} ended with a notification, so each took one (the general
     * check above proved each take has its put); the wait that timed out took none; the misuses
     * threw as without the agent (the output comparison) and recorded nothing.
     */
    private static void checkMonitors(Recording run, Output output) {
        long waits = output.stderr().stream().filter(l -> l.startsWith("monitor waits: "))
                .mapToLong(l -> Long.parseLong(l.substring("monitor waits: ".length()))).findFirst()
                .orElseThrow(() -> new AssertionError("no monitor waits line\n" + output));
        List<String> notifies = run.regions().values().stream().map(RegionInfo::name)
                .filter(n -> n.startsWith("monitor: notifyAll in HandoffApp$Turn.pass:")).toList();
        assertEquals(1, notifies.size(), () -> "the notify's site: " + run.regions().values());
        String waitSite = run.regions().values().stream().map(RegionInfo::name)
                .filter(n -> n.startsWith("monitor: wait in HandoffApp$Turn.pass:")).findFirst()
                .orElseThrow(() -> new AssertionError("no wait site: " + run.regions().values()));
        assertEquals(waits, run.events(waitSite, EventKind.HANDOFF_TAKE).size(), "a take per wait of the turn");
        assertTrue(run.events(notifies.get(0), EventKind.HANDOFF_PUT).size() >= waits,
                "a notification recorded for each wait it ended");
        run.regions().values().stream().map(RegionInfo::name)
                .filter(n -> n.startsWith("monitor: ") && (n.contains("HandoffApp.timedOut:")
                        || n.contains("HandoffApp.misused:"))).forEach(n -> assertEquals(0,
                        run.events(n, EventKind.HANDOFF_TAKE).size() + run.events(n, EventKind.HANDOFF_PUT).size(),
                        () -> "nothing recorded at " + n));
        System.err.println("HandoffIT: " + waits + " waits of the turn, each a monitor handoff");
    }

    /** Each joined thread: started (put 0, id), ended (put 1, id, by itself), joined (take 1, id). */
    private static void checkThreads(Recording run) {
        String threads = HandoffRegions.threadsName();
        for (int i = 0; i < 3; i++) {
            String name = "joined-" + i;
            long id = run.threadNames().entrySet().stream().filter(e -> e.getValue().equals(name))
                    .map(Map.Entry::getKey).findFirst().orElseThrow(() -> new AssertionError("no thread " + name));
            List<Event> own = run.events(threads, EventKind.HANDOFF_PUT).stream().filter(e -> e.b() == id).toList();
            assertTrue(own.stream().anyMatch(e -> e.a() == HandoffRegions.THREAD_START && e.thread() != id),
                    () -> name + " started: " + own);
            assertTrue(own.stream().anyMatch(e -> e.a() == HandoffRegions.THREAD_END && e.thread() == id),
                    () -> name + " ended: " + own);
            assertTrue(run.events(threads, EventKind.HANDOFF_TAKE).stream()
                    .anyMatch(e -> e.a() == HandoffRegions.THREAD_END && e.b() == id), () -> name + " joined");
        }
    }
}
