package dev.dprof.consolidator.consolidate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.consolidator.synthetic.CollectiveEdges;
import dev.dprof.consolidator.synthetic.Consolidated;
import dev.dprof.synthetic.SyntheticRun;
import dev.dprof.format.CollectiveFlavour;
import dev.dprof.format.CollectiveShape;
import dev.dprof.format.EventKind;
import dev.dprof.format.profile.ProfileEvent;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The consolidator's causal order on synthetic runs whose iterations end in collectives of every
 * flavour ({@link SyntheticRun.Spec#collectives}; simulated clocks, so every interval's truth is
 * known). Exits follow the last enter that precedes them by 2–10 µs against intervals tens of µs
 * wide, so only the recorded happens-before keeps them in order: every edge of the flavour must
 * hold in the output, and no other — a broadcast's or reduce's non-root, or a low rank of a scan,
 * that really left before others arrived is written before their enters.
 */
class CollectiveOrderTest {

    static Stream<Arguments> runs() {
        List<Arguments> all = new ArrayList<>();
        for (long seed = 1; seed <= 3; seed++) {
            all.add(Arguments.of(seed, 0.0));
            all.add(Arguments.of(seed + 10, 50.0));
        }
        return all.stream();
    }

    static SyntheticRun.Spec spec(long seed, double drift) {
        return SyntheticRunPropertiesTest.spec(seed, drift).collectives(true).latencyMicros(1, 3);
    }

    /** Iterations of flavour {@code f} among the spec's 12: iteration i has flavour i mod 5. */
    private static int instances(CollectiveFlavour f) {
        int n = 0;
        for (int i = 0; i < 12; i++) {
            n += SyntheticRun.collectiveOf(i, 0, 1).flavour() == f ? 1 : 0;
        }
        return n;
    }

    @ParameterizedTest(name = "seed {0}, drift {1} ppm")
    @MethodSource("runs")
    void everyFlavourOrdersExactlyItsEdges(long seed, double drift, @TempDir Path dir) throws Exception {
        SyntheticRun.Result run = SyntheticRun.generate(spec(seed, drift), dir);
        Consolidated c = Consolidated.of(run, dir.resolve("profile"), "bounded:2.2");
        ProfileInfo info = c.info();
        assertEquals(0, info.causalityConflicts());
        assertEquals(List.of(), info.problems(), "every instance complete and well formed");
        assertEquals(run.events(), c.events().size());
        List<ProfileEvent> events = c.events();
        for (ProfileEvent e : events) {
            assertTrue(e.lo <= e.truth && e.truth <= e.hi, "interval holds the truth");
        }

        List<CollectiveEdges> edges = CollectiveEdges.of(events);
        Map<CollectiveFlavour, Integer> edgesOf = new EnumMap<>(CollectiveFlavour.class);
        for (CollectiveEdges edge : edges) {
            assertTrue(edge.enter() < edge.exit(), "an exit written before an enter that happens before it");
            edgesOf.merge(CollectiveShape.flavourOf(events.get(edge.exit()).b), 1, Integer::sum);
        }
        int all = info.streams().size() - info.processes().size(); // workers: every stream but the drainers
        assertEquals(instances(CollectiveFlavour.N_TO_N) * all * all, edgesOf.get(CollectiveFlavour.N_TO_N),
                "N-to-N: every enter before every exit");
        assertEquals(instances(CollectiveFlavour.ONE_TO_N) * all, edgesOf.get(CollectiveFlavour.ONE_TO_N),
                "1-to-N: the root's enter before each exit");
        assertEquals(instances(CollectiveFlavour.N_TO_ONE) * all, edgesOf.get(CollectiveFlavour.N_TO_ONE),
                "N-to-1: each enter before the root's exit");
        assertEquals(instances(CollectiveFlavour.SCAN) * all * (all + 1) / 2, edgesOf.get(CollectiveFlavour.SCAN),
                "scan: rank i's enter before rank j's exit, i ≤ j");
        assertEquals(instances(CollectiveFlavour.EXSCAN) * all * (all - 1) / 2, edgesOf.get(CollectiveFlavour.EXSCAN),
                "exscan: i < j");

        // No edge the flavour does not have: some exit of every other flavour is written before an
        // enter of its instance, which an N-to-N reading would forbid.
        Map<CollectiveFlavour, Integer> early = new EnumMap<>(CollectiveFlavour.class);
        Map<List<Long>, Integer> lastEnter = new java.util.HashMap<>();
        for (int i = 0; i < events.size(); i++) {
            ProfileEvent e = events.get(i);
            if (e.kind == EventKind.BARRIER_ENTER) {
                lastEnter.put(List.of((long) e.region, e.a), i);
            }
        }
        for (int i = 0; i < events.size(); i++) {
            ProfileEvent e = events.get(i);
            if (e.kind == EventKind.BARRIER_EXIT && lastEnter.get(List.of((long) e.region, e.a)) > i) {
                early.merge(CollectiveShape.flavourOf(e.b), 1, Integer::sum);
            }
        }
        assertEquals(null, early.get(CollectiveFlavour.N_TO_N));
        for (CollectiveFlavour f : List.of(CollectiveFlavour.ONE_TO_N, CollectiveFlavour.N_TO_ONE,
                CollectiveFlavour.SCAN, CollectiveFlavour.EXSCAN)) {
            assertTrue(early.getOrDefault(f, 0) > 0, f + ": some exit before its instance's last enter");
        }
    }
}
