package dev.dprof.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.consolidator.consolidate.Consolidator;
import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.consolidator.read.RunDirs;
import dev.dprof.consolidator.stats.RegionStats;
import dev.dprof.consolidator.stats.RunStatistics;
import dev.dprof.format.EventKind;
import dev.dprof.format.HandoffRegions;
import dev.dprof.format.RingFile;
import dev.dprof.it.ForkedJvm.Event;
import dev.dprof.it.ForkedJvm.Output;
import dev.dprof.it.ForkedJvm.Recording;
import dev.dprof.it.app.VirtualThreadApp;
import dev.dprof.testsupport.Jdks;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Virtual threads as threads of their own (JDK 21 and later): each one's events form one stream
 * with its own id and name, in its order, whichever carriers it ran on; a region inside which it
 * parked is one interval, at least as long as the sleep inside it; the statistics and the
 * consolidation count every call; and the agent keeps no ring, and next to no memory, per virtual
 * thread. Run on the first JDK of 21 or later under {@code /usr/lib/jvm}; without one the tests
 * are skipped, except where the environment says {@code CI=true}: there they fail.
 */
class VirtualThreadsIT {
    static final int THREADS = 10_000;
    static final int PARKED = 100_000;
    /**
     * Large enough that no ring can fill whatever the drainer's timing: nothing is lost. The parked
     * threads start in one burst, each leaving its start (a thread handoff) on the starter's ring and
     * about four events on a carrier's, while the drainer may wait for a CPU (at 262144, a loaded
     * host lost a few thousand of them, counted).
     */
    static final String YAML = """
            ringEvents: 1048576
            regions:
              - name: vt.outer
                class: dev.dprof.it.app.VirtualThreadApp
                method: outer
              - name: vt.work
                class: dev.dprof.it.app.VirtualThreadApp
                method: work
              - name: vt.parked
                class: dev.dprof.it.app.VirtualThreadApp
                method: parked
            """;
    /**
     * The tick rate of the queue's header is measured over 10 ms against {@code System.nanoTime}; a
     * sleep's duration in ticks is checked against it with this relative allowance.
     */
    static final double RATE_ALLOWANCE = 0.005;

    private Path jdk;

    @BeforeEach
    void requireVirtualThreads() throws IOException {
        jdk = Jdks.modern();
    }

    @Test
    void tenThousandVirtualThreadsParkingInNestedRegions(@TempDir Path tmp) throws Exception {
        Recording run = runNested(tmp, YAML, THREADS);
        Path out = tmp.resolve("out");

        RunStatistics stats = RunStatistics.of(RunDirs.expand(List.of(out)));
        assertEquals(List.of(), stats.problems());
        Map<String, RegionStats> byName = new java.util.HashMap<>();
        stats.regions().forEach(r -> byName.put(r.name(), r));
        assertEquals(THREADS, byName.get("vt.outer").count());
        assertEquals(2L * THREADS, byName.get("vt.work").count());
        double sleepNs = VirtualThreadApp.SLEEP_MS * 1e6 * (1 - RATE_ALLOWANCE);
        assertTrue(byName.get("vt.work").minNs() >= sleepNs, () -> "work min " + byName.get("vt.work").minNs());
        assertTrue(byName.get("vt.outer").minNs() >= 2 * sleepNs, () -> "outer min " + byName.get("vt.outer").minNs());

        Path profile = tmp.resolve("profile");
        ProfileInfo info = Consolidator.run(new Consolidator.Options(List.of(out), List.of(), profile,
                Consolidator.Sync.NONE, null, Optional.empty()), n -> { });
        assertEquals(List.of(), info.problems());
        assertEquals(run.events().size(), info.events(), "every event consolidated");
        long virtualStreams = info.streams().stream().filter(s -> run.threadNames().get(s.thread()) != null
                && isVirtualName(s.name(), s.thread())).count();
        assertEquals(THREADS, virtualStreams, "one stream per virtual thread");
    }

    /** The Java rings (the {@code nanotime} clock) are the carriers' too. */
    @Test
    void javaRingsBelongToCarriers(@TempDir Path tmp) throws Exception {
        runNested(tmp, "clock: nanotime\n" + YAML, 2_000);
    }

    /**
     * {@value #PARKED} virtual threads parked inside a region: no ring per virtual thread (the ring
     * files are a handful, one per platform thread that recorded), and no object of the agent's per
     * virtual thread: in the class histogram of the heap while they are parked, every class with
     * about {@value #PARKED} instances or more is there without the agent too, in the same numbers
     * give or take the agent's fixed structures.
     * (Bytes alone would not do: the stack chunks of the parked threads differ in size with the
     * JIT's state, by hundreds of bytes per thread either way, agent or not.)
     */
    @Test
    void parkedVirtualThreadsCostNoRingAndNoObject(@TempDir Path tmp) throws Exception {
        ForkedJvm.assumeNativeLibrary(); // counts ring files, which only the native rings have
        Path out = tmp.resolve("out");
        ForkedJvm.Running with = ForkedJvm.app(VirtualThreadApp.class, tmp).javaHome(jdk)
                .agent(ForkedJvm.config(tmp, YAML), out).args("park", PARKED).start();
        with.awaitLine("parked ");
        Path queue = RunDirs.expand(List.of(out)).get(0);
        long rings;
        try (Stream<Path> files = Files.list(queue.resolve(RingFile.DIRECTORY))) {
            rings = files.filter(f -> f.toString().endsWith(RingFile.SUFFIX)).count();
        }
        Map<String, long[]> withAgent = perThreadClasses(histogram(with.pid()));
        with.println("go");
        Output withOutput = with.await();
        assertEquals(0, withOutput.exitCode(), withOutput::toString);
        assertTrue(rings >= 1 && rings <= 64, "ring files while " + PARKED + " virtual threads were parked: " + rings);

        ForkedJvm.Running without = ForkedJvm.app(VirtualThreadApp.class, tmp).javaHome(jdk).args("park", PARKED).start();
        without.awaitLine("parked ");
        Map<String, long[]> noAgent = perThreadClasses(histogram(without.pid()));
        without.println("go");
        Output noAgentOutput = without.await();
        assertEquals(0, noAgentOutput.exitCode(), noAgentOutput::toString);

        long extraBytes = 0;
        for (Map.Entry<String, long[]> c : withAgent.entrySet()) {
            long[] other = noAgent.get(c.getKey());
            // An object per thread would add PARKED instances; the agent's fixed maps add a few thousand.
            assertTrue(other != null && c.getValue()[0] - other[0] < PARKED / 4,
                    () -> c.getKey() + ": " + c.getValue()[0] + " instances with the agent, "
                            + (other == null ? 0 : other[0]) + " without");
            if (!c.getKey().equals("jdk.internal.vm.StackChunk")) {
                extraBytes += c.getValue()[1] - other[1];
            }
        }
        System.out.printf("VirtualThreadsIT: %d parked virtual threads, %d ring files; objects of %d classes per thread"
                + " with and without the agent, %+d B per thread outside the stack chunks; heap growth"
                + " with the agent %d B, without %d B%n", PARKED, rings, withAgent.size(), extraBytes / PARKED,
                heapGrowth(withOutput), heapGrowth(noAgentOutput));

        Recording run = Recording.readOnly(out);
        run.requireCleanEnd();
        assertEquals(PARKED + 1, run.count("vt.parked", EventKind.ENTER), "the parked threads and the warm-up's");
        assertEquals(PARKED + 1, run.count("vt.parked", EventKind.EXIT));
    }

    /** {@code jcmd PID GC.class_histogram} with the JDK under test. */
    private List<String> histogram(long pid) throws IOException, InterruptedException {
        Process jcmd = new ProcessBuilder(jdk.resolve("bin/jcmd").toString(), Long.toString(pid), "GC.class_histogram")
                .redirectErrorStream(true).start();
        List<String> lines = new String(jcmd.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8)
                .lines().toList();
        assertEquals(0, jcmd.waitFor(), () -> String.join("\n", lines));
        return lines;
    }

    /** The classes with at least half as many instances as parked threads: {instances, bytes} by name. */
    private static Map<String, long[]> perThreadClasses(List<String> histogram) {
        Pattern row = Pattern.compile("\\s*\\d+:\\s+(\\d+)\\s+(\\d+)\\s+(\\S+).*");
        Map<String, long[]> classes = new java.util.TreeMap<>();
        for (String line : histogram) {
            Matcher m = row.matcher(line);
            if (m.matches() && Long.parseLong(m.group(1)) >= PARKED / 2) {
                // A lambda's or hidden class's name ends in its address, which differs between JVMs.
                String name = m.group(3).replaceAll("/0x[0-9a-f]+$", "");
                classes.put(name, new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2))});
            }
        }
        assertTrue(classes.containsKey("java.lang.VirtualThread"), () -> String.join("\n", histogram));
        return classes;
    }

    /** Runs the nested scenario and checks every virtual thread's stream; returns the recording. */
    private Recording runNested(Path tmp, String yaml, int threads) throws Exception {
        Path out = tmp.resolve("out");
        Output output = ForkedJvm.app(VirtualThreadApp.class, tmp).javaHome(jdk).agent(ForkedJvm.config(tmp, yaml), out)
                .args("nested", threads).runOk();
        assertEquals(List.of("done " + threads), output.stdout(), output::toString);
        Recording run = Recording.readOnly(out);
        run.requireCleanEnd();
        // The scheduler's tasks (each thread's continuation, at every start and unpark) are no
        // executor handoffs (VirtualThreads.isScheduler), and the application uses no other pool.
        String executor = HandoffRegions.siteName(HandoffRegions.Kind.EXECUTOR, "ForkJoinPool", "(any pool)");
        assertEquals(List.of(), run.events().stream().filter(e -> executor.equals(e.region())).limit(3).toList(),
                "executor handoffs of the virtual threads' scheduler");
        assertEquals(threads, run.count("vt.outer", EventKind.ENTER));
        assertEquals(threads, run.count("vt.outer", EventKind.EXIT));
        assertEquals(2L * threads, run.count("vt.work", EventKind.ENTER));
        assertEquals(2L * threads, run.count("vt.work", EventKind.EXIT));

        long sleepTicks = (long) (VirtualThreadApp.SLEEP_MS * 1e-3 * run.header().nominalTickHz() * (1 - RATE_ALLOWANCE));
        int virtual = 0;
        int named = 0;
        for (Map.Entry<Long, List<Event>> thread : run.byThread().entrySet()) {
            long id = thread.getKey();
            String name = run.threadNames().get(id);
            List<Event> events = thread.getValue();
            if (name == null || !isVirtualName(name, id)) {
                assertTrue(events.stream().noneMatch(e -> e.region() != null && e.region().startsWith("vt.")),
                        () -> "a platform thread " + name + " has a virtual thread's regions: " + events);
                assertTrue(events.stream().noneMatch(e -> e.kind() == EventKind.VT_MOUNT || e.kind() == EventKind.VT_UNMOUNT),
                        () -> name + " kept a virtual thread's markers");
                continue;
            }
            virtual++;
            named += name.startsWith("vt-") ? 1 : 0;
            checkVirtualThread(name, id, events, sleepTicks);
        }
        assertEquals(threads, virtual, "virtual threads with a stream of their own");
        assertEquals(threads / 2, named, "virtual threads named by the application");
        return run;
    }

    /**
     * One virtual thread's stream: its first mount first, then its start; outer ⊃ work, work twice,
     * each work at least its sleep; its end, then its last unmount; mounts and unmounts alternate,
     * all carrying its id; ticks never go back.
     */
    private static void checkVirtualThread(String name, long id, List<Event> events, long sleepTicks) {
        assertEquals(EventKind.VT_MOUNT, events.get(0).kind(), name);
        assertEquals(EventKind.THREAD_START, events.get(1).kind(), name);
        assertEquals(EventKind.VT_UNMOUNT, events.get(events.size() - 1).kind(), name);
        assertEquals(EventKind.THREAD_END, events.get(events.size() - 2).kind(), name);
        boolean mounted = false;
        long tick = Long.MIN_VALUE;
        StringBuilder regions = new StringBuilder();
        long workEnter = 0;
        for (Event e : events) {
            assertTrue(e.tick() >= tick, () -> name + ": ticks go back at " + e);
            tick = e.tick();
            switch (e.kind()) {
                case VT_MOUNT -> {
                    assertTrue(!mounted && e.a() == id, () -> name + ": " + events);
                    mounted = true;
                }
                case VT_UNMOUNT -> {
                    assertTrue(mounted && e.a() == id, () -> name + ": " + events);
                    mounted = false;
                }
                case ENTER -> {
                    regions.append('+').append(e.region()).append(' ');
                    if (e.region().equals("vt.work")) {
                        workEnter = e.tick();
                    }
                }
                case EXIT -> {
                    regions.append('-').append(e.region()).append(' ');
                    if (e.region().equals("vt.work")) {
                        long d = e.tick() - workEnter;
                        assertTrue(d >= sleepTicks, () -> name + ": work lasted " + d + " ticks, less than its sleep");
                    }
                }
                default -> assertTrue(mounted, () -> name + ": " + e + " outside a mount");
            }
        }
        assertEquals("+vt.outer +vt.work -vt.work +vt.work -vt.work -vt.outer ", regions.toString(), name);
        assertTrue(events.stream().filter(e -> e.kind() == EventKind.VT_MOUNT).count() >= 3,
                () -> name + " parked twice, so it was mounted at least three times: " + events);
    }

    private static boolean isVirtualName(String name, long id) {
        return name.startsWith("vt-") || name.equals("virtual-" + id);
    }

    /** The second heap figure the app printed minus the first (bytes). */
    private static long heapGrowth(Output output) {
        Pattern heap = Pattern.compile("heap (\\d+)");
        long[] figures = output.stdout().stream().map(heap::matcher).filter(Matcher::matches)
                .mapToLong(m -> Long.parseLong(m.group(1))).toArray();
        assertEquals(2, figures.length, output::toString);
        return figures[1] - figures[0];
    }
}
