package dev.dprof.consolidator.sync;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.synthetic.Consolidated;
import dev.dprof.consolidator.synthetic.TinyProfile;
import dev.dprof.format.CollectiveFlavour;
import dev.dprof.format.CollectiveShape;
import dev.dprof.format.EventKind;
import dev.dprof.format.profile.ProfileEvent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The controlled logical clock on one collective instance per flavour, worked out on paper
 * (Becker et al. 2009, §4: a collective as logical messages from enters to exits).
 *
 * <p>Three processes, one thread each, rank = process. Process 0's midpoints are exact
 * ({@code C = t}), process 1's 50 ticks late, process 2's 50 ticks early. Each thread: work enter at
 * t = 1000, collective enter at 1100 / 1105 / 1110, collective exit at 1130 / 1135 / 1140, work exit
 * at 4000. So C of the enters is 1100, 1155, 1060 and of the exits 1130, 1185, 1090: by the
 * pre-synchronized clocks some exits come before enters that happen before them (the injected
 * violations), and some before enters that do not (which the flavour must leave alone). No
 * messages, so μ = 0; γ = 0.99, δ = 1; points rounded to whole ticks.
 */
class ClcCollectivesHandComputedTest {
    private static final long[] ENTER_AT = {1100, 1105, 1110};
    private static final long[] EXIT_AT = {1130, 1135, 1140};
    private static final long[] OFFSET = {0, 50, -50};
    private static final List<Long> P0_UNCHANGED = List.of(1000L, 1100L, 1130L, 4000L);
    private static final List<Long> P1_UNCHANGED = List.of(1050L, 1155L, 1185L, 4050L);
    private static final List<Long> P2_UNCHANGED = List.of(950L, 1060L, 1090L, 3950L);

    private static Profile trace(Path dir, CollectiveFlavour flavour, int root) throws Exception {
        Files.createDirectories(dir);
        TinyProfile p = new TinyProfile(dir, false);
        int[] stream = new int[3];
        for (int i = 0; i < 3; i++) {
            stream[i] = p.stream(p.process("1/1", "1/1", 0));
        }
        int work = p.region("work");
        int collective = p.region("collective", "barrier");
        for (int i = 0; i < 3; i++) {
            at(p, stream[i], EventKind.ENTER, work, 1000, OFFSET[i], 0);
        }
        for (int i = 0; i < 3; i++) {
            at(p, stream[i], EventKind.BARRIER_ENTER, collective, ENTER_AT[i], OFFSET[i],
                    new CollectiveShape(flavour, 3, i, root).pack());
        }
        for (int i = 0; i < 3; i++) {
            at(p, stream[i], EventKind.BARRIER_EXIT, collective, EXIT_AT[i], OFFSET[i],
                    new CollectiveShape(flavour, 3, i, root).pack());
        }
        for (int i = 0; i < 3; i++) {
            at(p, stream[i], EventKind.EXIT, work, 4000, OFFSET[i], 0);
        }
        return p.write();
    }

    /** An event at real tick {@code t} whose midpoint is {@code t + offset}, 120 ticks wide. */
    private static void at(TinyProfile p, int stream, EventKind kind, int region, long t, long offset, long b) {
        p.event(stream, kind, region, t, t + offset - 60, t + offset + 60, t, 7, b);
    }

    private record Corrected(List<List<Long>> points, IntervalDeviation deviation) {
    }

    private static Corrected clc(Path dir, CollectiveFlavour flavour, int root) throws Exception {
        PointSync.Correction c = PointSync.correct(trace(dir.resolve("freezer"), flavour, root), dir.resolve("clc"));
        List<List<Long>> points = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        for (ProfileEvent e : Consolidated.readAll(Profile.open(dir.resolve("clc")))) {
            points.get(e.stream).add(e.lo);
        }
        assertEquals(0, c.minimumLatencyBetweenNs(), 0);
        return new Corrected(points, c.deviation());
    }

    /**
     * Every enter precedes every exit: the exits of processes 0 (C 1130) and 2 (C 1090) jump to the
     * last enter, process 1's at 1155 (jumps Δ = 25 and 65). Forward: process 0's work exit
     * max(4000, 1155 + 0.99·(4000 − 1130) = 3996.3) = 4000; process 2's max(3950, 1155 +
     * 0.99·(3950 − 1090)) = 3986.4.
     * Backward over L_A = Δ/0.02 (1250 and 3250 ticks): the enter's limit (its earliest exit, 1155)
     * is above the ramp, so the ramp is straight: process 0's work enter rises by 25·1120/1250 =
     * 22.4, its enter by 25·1220/1250 = 24.4; process 2's by 65·3110/3250 = 62.2 and 64.4.
     */
    @Test
    void nToNMovesEveryExitPastTheLastEnter(@TempDir Path dir) throws Exception {
        Corrected c = clc(dir, CollectiveFlavour.N_TO_N, 0);
        assertEquals(List.of(1022L, 1124L, 1155L, 4000L), c.points().get(0));
        assertEquals(P1_UNCHANGED, c.points().get(1));
        assertEquals(List.of(1012L, 1124L, 1155L, 3986L), c.points().get(2));
    }

    /**
     * Root 0: only its enter (C 1100) precedes the exits. Process 2's exit (1090) jumps by Δ = 10;
     * process 0's exit stays at 1130 although process 1 entered at 1155 (no edge). Forward: process
     * 2's work exit max(3950, 1100 + 0.99·2860 = 3931.4) = 3950. Backward over 500 ticks: its enter
     * precedes no exit (no limit), so the ramp is straight: +10·360/500 = 7.2 at 950, +9.4 at 1060.
     * Becker §6.2 on the unrounded points: process 2's distances 110, 30, 2860 become 112.2, 30.6,
     * 2850 (deviations 2.2, 0.6, 10: 2%, 2%, 0.35%), of 9000 ticks of distance in all: Σ|Δt|/Σt =
     * 12.8 / 9000; positions 110, 140, 3000 move by 2.2, 2.8, 7.2 (at most 2%).
     */
    @Test
    void oneToNMovesOnlyTheExitsBeforeTheRootsEnter(@TempDir Path dir) throws Exception {
        Corrected c = clc(dir, CollectiveFlavour.ONE_TO_N, 0);
        assertEquals(P0_UNCHANGED, c.points().get(0));
        assertEquals(P1_UNCHANGED, c.points().get(1));
        assertEquals(List.of(957L, 1069L, 1100L, 3950L), c.points().get(2));
        IntervalDeviation d = c.deviation();
        assertEquals(9, d.intervals());
        assertEquals(12.8 / 9000, d.distanceWeightedMean(), 1e-12);
        assertEquals(7.2, d.positionMaxAbsoluteTicks(), 1e-9);
        assertEquals(0.02, d.positionMaxRelative(), 1e-12);
        // thresholds 0, 0.1%, 1%, 10%, 100%
        assertArrayEquals(new double[] {3 / 9.0, 3 / 9.0, 2 / 9.0, 0, 0}, d.intervalsAbove(), 1e-12);
        assertArrayEquals(new double[] {3000 / 9000.0, 3000 / 9000.0, 140 / 9000.0, 0, 0}, d.timeAbove(), 1e-12);
    }

    /**
     * Root 0: every enter precedes its exit only. Process 0's exit (1130) jumps to process 1's enter
     * (1155), exactly as for N-to-N; process 2's exit stays at 1090 although process 1 entered at
     * 1155 (no edge).
     */
    @Test
    void nToOneMovesOnlyTheRootsExit(@TempDir Path dir) throws Exception {
        Corrected c = clc(dir, CollectiveFlavour.N_TO_ONE, 0);
        assertEquals(List.of(1022L, 1124L, 1155L, 4000L), c.points().get(0));
        assertEquals(P1_UNCHANGED, c.points().get(1));
        assertEquals(P2_UNCHANGED, c.points().get(2));
    }

    /**
     * Rank j's exit follows the enters of ranks ≤ j: rank 1's (1185) already follows 1100 and 1155;
     * rank 2's (1090) jumps to 1155 as for N-to-N; rank 0's exit is left at 1130 although rank 1
     * entered at 1155 (no edge).
     */
    @Test
    void scanMovesAnExitOnlyPastTheLowerRanksEnters(@TempDir Path dir) throws Exception {
        Corrected c = clc(dir, CollectiveFlavour.SCAN, 0);
        assertEquals(P0_UNCHANGED, c.points().get(0));
        assertEquals(P1_UNCHANGED, c.points().get(1));
        assertEquals(List.of(1012L, 1124L, 1155L, 3986L), c.points().get(2));
    }

    /**
     * Rank j's exit follows the enters of ranks < j: rank 2's exit jumps to rank 1's enter (1155);
     * process 2's own enter precedes no exit, so it has no limit — with the straight ramp the
     * points are those of the scan.
     */
    @Test
    void exscanMovesAnExitOnlyPastTheStrictlyLowerRanksEnters(@TempDir Path dir) throws Exception {
        Corrected c = clc(dir, CollectiveFlavour.EXSCAN, 0);
        assertEquals(P0_UNCHANGED, c.points().get(0));
        assertEquals(P1_UNCHANGED, c.points().get(1));
        assertEquals(List.of(1012L, 1124L, 1155L, 3986L), c.points().get(2));
    }

    /**
     * Inversions on midpoints count only the flavour's pairs: for N-to-N the exits of processes 0
     * (1130) and 2 (1090) come before process 1's enter (1155); for 1-to-N with root 0 only process
     * 2's exit comes before the root's enter (1100); for N-to-1 only the root's exit (1130) before
     * 1155. After CLC none is left.
     */
    @Test
    void syncQualityCountsTheFlavoursInversionsOnly(@TempDir Path dir) throws Exception {
        long[][] expected = {{0, 2}, {1, 1}, {2, 1}, {3, 1}, {4, 1}};
        for (long[] x : expected) {
            CollectiveFlavour f = CollectiveFlavour.values()[(int) x[0]];
            Path d = dir.resolve(f.label);
            Profile freezer = trace(d.resolve("freezer"), f, 0);
            SyncQuality.Figures before = SyncQuality.measure(freezer, "freezer", 0);
            assertEquals(x[1], before.barrierInversions(), f.label);
            assertEquals(x[1], before.inversions(), f.label);
            PointSync.correct(freezer, d.resolve("clc"));
            SyncQuality.Figures after = SyncQuality.measure(Profile.open(d.resolve("clc")), "clc", 0);
            assertEquals(0, after.inversions(), f.label);
            // exits with at least one enter before them: all but exscan's rank 0, and N-to-1's root only
            long exits = f == CollectiveFlavour.N_TO_ONE ? 1 : f == CollectiveFlavour.EXSCAN ? 2 : 3;
            assertEquals(exits, after.barrierExits(), f.label);
        }
    }

    /** After the correction no exit comes before an enter that precedes it by the flavour (μ = 0). */
    @Test
    void noFlavourLeavesAViolation(@TempDir Path dir) throws Exception {
        for (CollectiveFlavour f : CollectiveFlavour.values()) {
            for (int root = 0; root < 3; root++) {
                Path d = dir.resolve(f + "-" + root);
                Corrected c = clc(d, f, root);
                for (int exit = 0; exit < 3; exit++) {
                    for (int enter = 0; enter < 3; enter++) {
                        if (f.precedes(enter, exit, root)) {
                            long sent = c.points().get(enter).get(1);
                            long received = c.points().get(exit).get(2);
                            assertTrue(received >= sent, f + " root " + root + ": enter of " + enter
                                    + " at " + sent + ", exit of " + exit + " at " + received);
                        }
                    }
                }
            }
        }
    }
}
