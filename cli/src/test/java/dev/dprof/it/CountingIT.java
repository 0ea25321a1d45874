package dev.dprof.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.format.EventKind;
import dev.dprof.format.HandoffRegions;
import dev.dprof.format.ProcessEnd;
import dev.dprof.it.ForkedJvm.Event;
import dev.dprof.it.ForkedJvm.Output;
import dev.dprof.it.ForkedJvm.Recording;
import dev.dprof.it.app.CountingApp;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Exact event counts: {@value #THREADS} threads × {@value #CALLS} calls of two YAML regions (an
 * instance and a static method) give exactly that many enters and exits per region, one
 * THREAD_START and one THREAD_END per worker, nothing lost, and each thread's ticks never go
 * back. Each worker records 4·{@value #CALLS}+2 events and the handoff put of its own end, fewer
 * than its ring holds, so no loss is possible whatever the drainer's timing; main records only
 * handoffs (the workers' starts, their joins).
 */
class CountingIT {
    static final int THREADS = 4;
    static final int CALLS = 10_000;
    static final String YAML = """
            regions:
              - name: count.compute
                class: dev.dprof.it.app.CountingApp$Work
                method: compute
              - name: count.static
                class: dev.dprof.it.app.CountingApp$Work
                method: twice
            """;

    @Test
    void everyCallIsRecordedExactlyOnce(@TempDir Path tmp) throws Exception {
        runAndCheck(tmp, ForkedJvm.app(CountingApp.class, tmp));
    }

    /** Runs {@link CountingApp} with the agent in {@code jvm} and checks the counts; shared with {@link Jdk25IT}. */
    static Recording runAndCheck(Path tmp, ForkedJvm jvm) throws Exception {
        return checkRun(tmp, jvm.agent(ForkedJvm.config(tmp, YAML), tmp.resolve("out")));
    }

    /** The same with further agent arguments ({@code drainer=process}); shared with {@link ProcessDrainerIT}. */
    static Recording runAndCheck(Path tmp, ForkedJvm jvm, String agentArgs) throws Exception {
        return checkRun(tmp, jvm.agent(ForkedJvm.config(tmp, YAML), tmp.resolve("out"), agentArgs));
    }

    private static Recording checkRun(Path tmp, ForkedJvm withAgent) throws Exception {
        Path out = tmp.resolve("out");
        Output output = withAgent.args(THREADS, CALLS).runOk();
        assertEquals(List.of("sum=" + CountingApp.expectedSum(THREADS, CALLS)), output.stdout(), output::toString);
        assertEquals(1, output.dprofLinesAllWoven().size(), output::toString);
        String line = output.dprofLines().get(0);
        assertTrue(line.startsWith("dprof: recording 2 configured regions to " + out), output::toString);
        assertEquals("dprof: woven 2 methods in 1 class for 2 of 2 configured regions", output.dprofLines().get(1));

        Recording run = Recording.readOnly(out);
        ProcessEnd end = run.requireCleanEnd();
        assertEquals(run.events().size(), end.eventsWritten(), "events written, as the end record says");
        for (String region : List.of("count.compute", "count.static")) {
            assertEquals(THREADS * CALLS, run.count(region, EventKind.ENTER), region + " enters");
            assertEquals(THREADS * CALLS, run.count(region, EventKind.EXIT), region + " exits");
            assertEquals(0, run.count(region, EventKind.EXIT_THROW), region + " exceptional exits");
        }

        Set<String> workers = java.util.stream.IntStream.range(0, THREADS).mapToObj(t -> "worker-" + t)
                .collect(Collectors.toSet());
        Map<Long, List<Event>> byThread = run.byThread();
        for (Map.Entry<Long, List<Event>> thread : byThread.entrySet()) {
            String name = run.threadNames().get(thread.getKey());
            List<Event> events = thread.getValue();
            assertNonDecreasingTicks(name, events);
            if (name.equals("dprof-drainer")) {
                assertEquals(List.of(EventKind.PROBE_COST), events.stream().map(Event::kind).toList(),
                        "the drainer writes only its probe-cost marker");
                continue;
            }
            List<Event> handoffs = events.stream().filter(e -> e.kind().handsOff()).toList();
            if (events.stream().allMatch(e -> e.kind().handsOff() || e.kind() == EventKind.THREAD_START
                    || e.kind() == EventKind.THREAD_END)) {
                continue; // main, and the JVM's own threads: only their handoffs (starts, joins, ends)
            }
            assertTrue(workers.remove(name), () -> "unexpected thread with events: " + name);
            assertEquals(List.of(List.of(HandoffRegions.THREAD_END, thread.getKey())),
                    handoffs.stream().map(e -> List.of(e.a(), e.b())).toList(), name + " puts its own end, nothing else");
            events = events.stream().filter(e -> !e.kind().handsOff()).toList();
            assertEquals(4 * CALLS + 2, events.size(), name);
            assertEquals(EventKind.THREAD_START, events.get(0).kind(), name + " starts with THREAD_START");
            assertEquals(EventKind.THREAD_END, events.get(events.size() - 1).kind(), name + " ends with THREAD_END");
            assertEquals(1, events.stream().filter(e -> e.kind() == EventKind.THREAD_START).count(), name);
            assertEquals(1, events.stream().filter(e -> e.kind() == EventKind.THREAD_END).count(), name);
            assertEquals(CALLS, events.stream().filter(e -> e.kind() == EventKind.ENTER
                    && e.region().equals("count.compute")).count(), name);
        }
        assertEquals(Set.of(), workers, "workers without events");
        return run;
    }

    static void assertNonDecreasingTicks(String thread, List<Event> events) {
        for (int i = 1; i < events.size(); i++) {
            int at = i;
            assertTrue(events.get(i).tick() >= events.get(i - 1).tick(),
                    () -> thread + ": tick goes back at event " + at + ": " + events.get(at - 1) + " then " + events.get(at));
        }
    }
}
