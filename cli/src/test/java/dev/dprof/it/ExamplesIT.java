package dev.dprof.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.calibrator.estimate.DriftModels;
import dev.dprof.consolidator.consolidate.Consolidator;
import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.examples.Cluster;
import dev.dprof.format.CollectiveFlavour;
import dev.dprof.format.CollectiveShape;
import dev.dprof.format.EventKind;
import dev.dprof.format.TcpRegions;
import dev.dprof.format.profile.ProfileEvent;
import dev.dprof.format.profile.ProfileEventsReader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bundled examples ({@code examples/}) as users run them: three worker JVMs started by
 * {@link Cluster}, each with the shaded agent and the example's own YAML from the repository,
 * small sizes (a few seconds each). Then the runs are consolidated in this JVM with
 * {@link Consolidator.Sync#NONE} (all workers share this machine's clock; no
 * {@code -Ddprof.clock.sim}, so no calibration is needed) and the profile is checked:
 *
 * <ul>
 * <li>no lost events, every process ended, no causality conflicts;</li>
 * <li>every message matched ({@code unmatchedSends == unmatchedReceives == 0}, no ambiguous key),
 * and — recounted from the events, per source — every send of the YAML-keyed send region has
 * exactly one receive with its (channel, key) in the receive region and vice versa;</li>
 * <li>the TCP byte streams the agent records without configuration ({@code tcp.write} /
 * {@code tcp.read}) exist and are matched both ways: every read ends past the start of a write
 * of its flow, every write starts before the end of some read of its flow;</li>
 * <li>every barrier instance is complete: as many enters and as many exits as its participants
 * (N workers × T threads), counted from the events.</li>
 * </ul>
 * {@link ExamplesApiIT} does the same for {@code dev.dprof.api.DProf} calls, {@link ExamplesDemoIT}
 * runs {@code dprof demo}.
 */
class ExamplesIT {
    static final int WORKERS = 3;
    static final int THREADS = 2;
    static final int ITERATIONS = 5;

    @Test
    void kmeans(@TempDir Path tmp) throws Exception {
        ProfileCheck p = runExample(tmp, "kmeans", "examples/kmeans/dprof-distributed.yaml", "--points", "50000");
        p.assertKeyedMessages("net.send", "net.receive");
        assertEquals(ITERATIONS, p.assertBarriers("kmeans.barrier", WORKERS * THREADS), p::describe);
        p.assertTcpMatched();
        p.assertAllMatched();
        p.assertRegionCount("kmeans.assign", EventKind.ENTER, WORKERS * THREADS * ITERATIONS);
        // the initial centroids' broadcast, a 1-to-N collective picked by YAML alone
        p.assertCollective("net.broadcast", CollectiveFlavour.ONE_TO_N, WORKERS, 0);
    }

    @Test
    void pagerank(@TempDir Path tmp) throws Exception {
        ProfileCheck p = runExample(tmp, "pagerank", "examples/pagerank/dprof.yaml", "--scale", "14");
        p.assertKeyedMessages("net.send", "net.receive");
        assertEquals(ITERATIONS, p.assertBarriers("pagerank.barrier", WORKERS * THREADS), p::describe);
        p.assertTcpMatched();
        p.assertAllMatched();
        p.assertRegionCount("pagerank.compute", EventKind.ENTER, WORKERS * THREADS * ITERATIONS);
    }

    @Test
    void connectedComponents(@TempDir Path tmp) throws Exception {
        // --iterations is an upper bound here: the run stops once the labels are stable
        ProfileCheck p = runExample(tmp, "cc", "examples/cc/dprof.yaml", "--scale", "14");
        p.assertKeyedMessages("net.send", "net.receive");
        int instances = p.assertBarriers("cc.barrier", WORKERS * THREADS);
        assertTrue(instances >= 1 && instances <= ITERATIONS, p::describe);
        p.assertTcpMatched();
        p.assertAllMatched();
        p.assertRegionCount("cc.propagate", EventKind.ENTER, WORKERS * THREADS * instances);
    }

    @Test
    void service(@TempDir Path tmp) throws Exception {
        ProfileCheck p = runExample(tmp, "service", "examples/service/dprof.yaml",
                "--requests", "20", "--rounds", "20000", "--sync-us", "200");
        // every request and every answer: clients × threads × iterations × requests, twice
        int requests = (WORKERS - 1) * THREADS * ITERATIONS * 20;
        assertEquals(2 * requests, p.assertKeyedMessages("service.send", "service.receive"), p::describe);
        assertEquals(0, p.assertBarriers(null, 0), p::describe);
        p.assertTcpMatched();
        p.assertAllMatched();
        // every request through every stage of the server's pipeline once
        for (String stage : new String[] {"service.dispatch", "service.compute", "service.sync", "service.reply"}) {
            p.assertRegionCount(stage, EventKind.ENTER, requests);
        }
        p.assertRegionCount("service.call", EventKind.ENTER, requests);
    }

    /** The repository root: {@code agent/jar/target/dprof.jar} is four levels below it. */
    static Path repositoryRoot() {
        return ForkedJvm.agentJar().toAbsolutePath().normalize().getParent().getParent().getParent().getParent();
    }

    /** The message of a worker whose port another process took between the launcher's pick and its bind. */
    static final String PORT_TAKEN = "Address already in use";
    /** How often a run that lost such a port race is started again. */
    static final int ATTEMPTS = 3;

    static ProfileCheck runExample(Path tmp, String app, String yaml, String... appOptions) throws Exception {
        for (int attempt = 1; ; attempt++) {
            // a fresh folder per attempt: a failed attempt's queues must not be consolidated
            Path runs = tmp.resolve("runs-" + attempt);
            String agent = "-javaagent:" + ForkedJvm.agentJar() + "=config=" + repositoryRoot().resolve(yaml)
                    + ",out=" + runs;
            Cluster.Result result = Cluster.builder().app(app).workers(WORKERS).threads(THREADS)
                    .iterations(ITERATIONS).args(appOptions).jvmArgs(rank -> List.of(agent)).directory(tmp)
                    .timeout(Duration.ofSeconds(120)).run();
            Supplier<String> output = () -> result.workers().stream()
                    .map(w -> "--- rank " + w.rank() + " exit " + w.exitCode() + "\n" + String.join("\n", w.output()))
                    .collect(Collectors.joining("\n"));
            boolean portTaken = result.workers().stream().anyMatch(w -> w.output().stream()
                    .anyMatch(l -> l.contains(PORT_TAKEN)));
            if (!result.ok() && portTaken && attempt < ATTEMPTS) {
                continue;
            }
            assertTrue(result.ok(), () -> "exit codes " + result.exitCodes() + "\n" + output.get());
            for (Cluster.Worker w : result.workers()) {
                assertTrue(w.span().isPresent(), () -> "no span line of rank " + w.rank() + "\n" + output.get());
                assertTrue(w.output().stream().anyMatch(l -> l.startsWith("dprof: recording")),
                        () -> "rank " + w.rank() + " ran without the agent\n" + output.get());
            }
            return ProfileCheck.consolidate(runs, tmp.resolve("profile"), WORKERS);
        }
    }

    /** A profile consolidated with {@code Sync.NONE}, its events in memory, and the checks. */
    static final class ProfileCheck {
        final ProfileInfo info;
        final List<ProfileEvent> events;

        private ProfileCheck(ProfileInfo info, List<ProfileEvent> events) {
            this.info = info;
            this.events = events;
        }

        static ProfileCheck consolidate(Path runs, Path out, int processes) throws Exception {
            ProfileInfo info = Consolidator.run(new Consolidator.Options(List.of(runs), List.of(), out,
                    Consolidator.Sync.NONE, DriftModels.parse("bounded:1"), Optional.empty()), n -> { });
            List<ProfileEvent> events = new ArrayList<>();
            try (ProfileEventsReader reader = Profile.open(out).events()) {
                ProfileEvent e = new ProfileEvent();
                while (reader.next(e)) {
                    events.add(e.copy());
                }
            }
            ProfileCheck check = new ProfileCheck(info, events);
            assertEquals(processes, info.processes().size(), check::describe);
            assertEquals(info.events(), events.size(), check::describe);
            for (ProfileInfo.Process p : info.processes()) {
                assertTrue(p.ended(), () -> "process " + p.pid() + " wrote no end record; " + check.describe());
                assertEquals(0, p.lostEvents(), () -> "process " + p.pid() + " lost events; " + check.describe());
            }
            assertEquals(0, info.causalityConflicts(), check::describe);
            assertEquals(0, info.unboundedEvents(), check::describe);
            return check;
        }

        String describe() {
            return "messages " + info.messages() + ", problems " + info.problems() + ", regions "
                    + info.regions().stream().map(r -> r.name() + "=" + countsOf(r.index())).toList();
        }

        private Map<EventKind, Long> countsOf(int region) {
            return events.stream().filter(e -> e.region == region)
                    .collect(Collectors.groupingBy(e -> e.kind, TreeMap::new, Collectors.counting()));
        }

        int region(String name) {
            return info.regions().stream().filter(r -> r.name().equals(name)).findFirst()
                    .orElseThrow(() -> new AssertionError("no region '" + name + "' in the profile; " + describe()))
                    .index();
        }

        List<ProfileEvent> events(String region, EventKind kind) {
            int index = region(region);
            return events.stream().filter(e -> e.region == index && e.kind == kind).toList();
        }

        void assertRegionCount(String region, EventKind kind, long expected) {
            assertEquals(expected, events(region, kind).size(), () -> region + " " + kind + "; " + describe());
        }

        /** The consolidator found every message of every source matched, none ambiguous. */
        void assertAllMatched() {
            ProfileInfo.Messages m = info.messages();
            assertEquals(0, m.unmatchedSends(), this::describe);
            assertEquals(0, m.unmatchedReceives(), this::describe);
            assertEquals(0, m.ambiguousKeys(), this::describe);
            assertTrue(m.matched() > 0, this::describe);
        }

        /**
         * Sends of {@code sendRegion} and receives of {@code receiveRegion} pair one to one by
         * (channel, key), each key sent once; returns the number of messages.
         */
        int assertKeyedMessages(String sendRegion, String receiveRegion) {
            Map<List<Long>, Integer> sent = new HashMap<>();
            for (ProfileEvent e : events(sendRegion, EventKind.SEND)) {
                sent.merge(List.of(e.a, e.b), 1, Integer::sum);
            }
            Map<List<Long>, Integer> received = new HashMap<>();
            for (ProfileEvent e : events(receiveRegion, EventKind.RECEIVE)) {
                received.merge(List.of(e.a, e.b), 1, Integer::sum);
            }
            assertTrue(!sent.isEmpty(), () -> "no sends in " + sendRegion + "; " + describe());
            List<List<Long>> twice = sent.entrySet().stream().filter(x -> x.getValue() > 1).map(Map.Entry::getKey)
                    .toList();
            assertEquals(List.of(), twice, () -> "(channel, key) sent more than once; " + describe());
            List<List<Long>> unreceived = sent.keySet().stream().filter(k -> !received.containsKey(k)).toList();
            assertEquals(List.of(), unreceived, () -> "sends of " + sendRegion + " never received; " + describe());
            List<List<Long>> unsent = received.keySet().stream().filter(k -> !sent.containsKey(k)).toList();
            assertEquals(List.of(), unsent, () -> "receives of " + receiveRegion + " never sent; " + describe());
            List<List<Long>> again = received.entrySet().stream().filter(x -> x.getValue() > 1)
                    .map(Map.Entry::getKey).toList();
            assertEquals(List.of(), again, () -> "(channel, key) received more than once; " + describe());
            return sent.size();
        }

        /**
         * The TCP regions the agent adds without configuration: present, and matched both ways by
         * byte offsets per flow ({@link TcpRegions}: a write's {@code b} is its first offset, a
         * read's {@code b} the offset past its last byte).
         */
        void assertTcpMatched() {
            List<ProfileEvent> writes = events(TcpRegions.WRITE, EventKind.SEND);
            List<ProfileEvent> reads = events(TcpRegions.READ, EventKind.RECEIVE);
            assertTrue(!writes.isEmpty() && !reads.isEmpty(), () -> "no TCP events; " + describe());
            Map<Long, TreeMap<Long, Integer>> writeStarts = new HashMap<>();
            for (ProfileEvent w : writes) {
                Integer previous = writeStarts.computeIfAbsent(w.a, f -> new TreeMap<>()).put(w.b, w.stream);
                assertEquals(null, previous, () -> "two writes start at offset " + w.b + " of flow "
                        + Long.toHexString(w.a) + "; " + describe());
            }
            Map<Long, Long> readEnds = new HashMap<>();
            for (ProfileEvent r : reads) {
                TreeMap<Long, Integer> flow = writeStarts.get(r.a);
                assertNotNull(flow, () -> "a read of flow " + Long.toHexString(r.a) + " that nobody wrote; "
                        + describe());
                assertNotNull(flow.floorKey(r.b - 1), () -> "a read ending at " + r.b + " of flow "
                        + Long.toHexString(r.a) + " before any write; " + describe());
                readEnds.merge(r.a, r.b, Math::max);
            }
            for (ProfileEvent w : writes) {
                long end = readEnds.getOrDefault(w.a, Long.MIN_VALUE);
                assertTrue(w.b < end, () -> "the write at offset " + w.b + " of flow " + Long.toHexString(w.a)
                        + " was never read (reads end at " + end + "); " + describe());
            }
        }

        /**
         * Every instance (key) of the barrier region has {@code participants} enters and as many
         * exits, each saying {@code participants}; returns the number of instances. With a null
         * region: the profile has no barrier events at all (returns 0).
         */
        int assertBarriers(String region, int participants) {
            if (region == null) {
                assertEquals(0, events.stream().filter(e -> e.kind == EventKind.BARRIER_ENTER
                        || e.kind == EventKind.BARRIER_EXIT).count(), this::describe);
                assertEquals(0, info.messages().barrierInstances(), this::describe);
                return 0;
            }
            Map<Long, int[]> instances = new TreeMap<>();
            for (EventKind kind : List.of(EventKind.BARRIER_ENTER, EventKind.BARRIER_EXIT)) {
                for (ProfileEvent e : events(region, kind)) {
                    assertEquals(participants, e.b, () -> region + " " + kind + " says " + e.b + " participants");
                    instances.computeIfAbsent(e.a, k -> new int[2])[kind == EventKind.BARRIER_ENTER ? 0 : 1]++;
                }
            }
            assertTrue(!instances.isEmpty(), () -> "no barrier events of " + region + "; " + describe());
            Map<Long, List<Integer>> incomplete = new TreeMap<>();
            instances.forEach((key, c) -> {
                if (c[0] != participants || c[1] != participants) {
                    incomplete.put(key, List.of(c[0], c[1]));
                }
            });
            assertEquals(Map.of(), incomplete, () -> region + " instances without " + participants
                    + " enters and exits (key=[enters, exits]); " + describe());
            assertEquals(collectiveInstances(), info.messages().barrierInstances(), this::describe);
            return instances.size();
        }

        /** Instances of every barrier and collective region, counted from the events. */
        private long collectiveInstances() {
            return events.stream().filter(e -> e.kind == EventKind.BARRIER_ENTER || e.kind == EventKind.BARRIER_EXIT)
                    .map(e -> List.of((long) e.region, e.a)).distinct().count();
        }

        /**
         * Every instance of collective {@code region} has the flavour, participants and root given, an
         * enter and an exit of each rank 0 .. participants − 1, and the root entered before any rank
         * left (the 1-to-N edge, in the consolidated order); the profile reports no incomplete instance.
         */
        void assertCollective(String region, CollectiveFlavour flavour, int participants, int root) {
            Map<Long, List<CollectiveShape>> enters = new TreeMap<>();
            Map<Long, List<CollectiveShape>> exits = new TreeMap<>();
            Map<Long, Integer> rootEntered = new TreeMap<>();
            int position = 0;
            int region0 = regionIndex(region);
            for (ProfileEvent e : events) {
                position++;
                if (e.region != region0) {
                    continue;
                }
                CollectiveShape shape = CollectiveShape.unpack(e.b);
                assertEquals(new CollectiveShape(flavour, participants, shape.rank(), root), shape, this::describe);
                if (e.kind == EventKind.BARRIER_ENTER) {
                    enters.computeIfAbsent(e.a, k -> new ArrayList<>()).add(shape);
                    if (shape.isRoot()) {
                        rootEntered.put(e.a, position);
                    }
                } else if (e.kind == EventKind.BARRIER_EXIT) {
                    exits.computeIfAbsent(e.a, k -> new ArrayList<>()).add(shape);
                    Integer entered = rootEntered.get(e.a);
                    assertTrue(entered != null && entered < position, () -> region + ": an exit before the root's enter");
                }
            }
            assertTrue(!enters.isEmpty(), () -> "no events of " + region + "; " + describe());
            List<Long> ranks = java.util.stream.LongStream.range(0, participants).boxed().toList();
            for (Map<Long, List<CollectiveShape>> side : List.of(enters, exits)) {
                side.forEach((key, shapes) -> assertEquals(ranks, shapes.stream().map(CollectiveShape::rank).sorted()
                        .toList(), () -> region + " instance " + key + ": ranks; " + describe()));
            }
            assertEquals(enters.keySet(), exits.keySet(), this::describe);
            assertTrue(info.problems().stream().noneMatch(p -> p.contains("collective")), this::describe);
        }

        private int regionIndex(String name) {
            return info.regions().stream().filter(r -> r.name().equals(name)).mapToInt(ProfileInfo.Region::index)
                    .findFirst().orElse(-1);
        }
    }
}
