package dev.dprof.consolidator.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.synthetic.Consolidated;
import dev.dprof.synthetic.SyntheticRun;
import dev.dprof.format.calibration.Zero;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The point methods fitted to the calibration exchanges as well as the run's messages.
 *
 * <p>The hand case: the parent's clock is {@code y = x + x/10⁴ + 5·10⁶} of the node's. The run's
 * messages are four election messages at its very start (x ≤ 3 020), two up that took 300 node
 * ticks and two down that took 20: alone they give a line whose slope rests on 3 000 ticks, wrong by
 * far more than any delay at the end of a 10¹⁰-tick run. The calibration measured 21 round trips
 * across the run, each 80 node ticks wide with the parent's read in the middle.
 */
class DomainClocksTest {
    private static final long SPAN = 10_000_000_000L;

    private static long parent(long x) {
        return x + x / 10_000 + 5_000_000;
    }

    private static MessagePairs.Direction direction(long[][] sentReceived) {
        MessagePairs.Direction d = new MessagePairs.Direction();
        for (long[] m : sentReceived) {
            d.add(m[0], m[1]);
        }
        return d;
    }

    private static final MessagePairs.Direction ELECTION_UP = direction(new long[][] {
            {1_000, parent(1_300)}, {2_000, parent(2_300)}});
    private static final MessagePairs.Direction ELECTION_DOWN = direction(new long[][] {
            {parent(1_500), 1_520}, {parent(3_000), 3_020}});

    private static List<Zero> exchanges() {
        List<Zero> zeros = new ArrayList<>();
        for (int i = 0; i <= 20; i++) {
            long k1 = i * (SPAN / 20);
            zeros.add(new Zero(i, k1, parent(k1 + 40), k1 + 80));
        }
        return zeros;
    }

    /** The largest |line(x) − truth(x)| over the run, in parent ticks. */
    private static double maxError(LinearClock line) {
        double max = 0;
        for (long x = 0; x <= SPAN; x += SPAN / 1000) {
            max = Math.max(max, Math.abs(line.apply(x) - parent(x)));
        }
        return max;
    }

    private static LinearClock fit(SyncMethod method, List<Zero> zeros, List<String> problems) {
        MessagePairs.Direction[] both = DomainClocks.withExchanges(ELECTION_UP, ELECTION_DOWN, zeros);
        return PointSync.fit(both[0], both[1], method, "node against parent", problems).line();
    }

    @Test
    void electionMessagesAloneMisplaceTheClockByFarMoreThanAnyDelay() {
        double lr = maxError(fit(SyncMethod.LR, List.of(), new ArrayList<>()));
        double ch = maxError(fit(SyncMethod.CH, List.of(), new ArrayList<>()));
        assertTrue(lr > 100_000, "lr " + lr);
        assertTrue(ch > 100_000, "ch " + ch);
    }

    @Test
    void withTheCalibrationExchangesBothStayWithinTheRoundTrip() {
        List<String> problems = new ArrayList<>();
        // Every ping is 40 ticks above the true line and every pong 40 below, so the regression's error
        // is what the four election messages pull it by: well within one round trip (80 ticks).
        double lr = maxError(fit(SyncMethod.LR, exchanges(), problems));
        assertTrue(lr < 80, "lr " + lr);
        // The hulls' corridor lies within ± 40 ticks (+ 1 for the slope's rounding) of the true line.
        double ch = maxError(fit(SyncMethod.CH, exchanges(), problems));
        assertTrue(ch <= 41, "ch " + ch);
        assertEquals(List.of(), problems);
    }

    @Test
    void clcOffsetsComeFromTheTightestRoundTripAtEachEndOfTheRun() {
        // Eight round trips of the hand case; the first is 100 000 ticks wide with the parent's read at
        // its start (its midpoint offset is 50 000 ticks off), the others 80 wide and centred.
        List<Zero> zeros = new ArrayList<>();
        zeros.add(new Zero(0, 0, parent(0), 100_000));
        for (int i = 1; i < 8; i++) {
            long k1 = i * (SPAN / 7);
            zeros.add(new Zero(i, k1, parent(k1 + 40), k1 + 80));
        }
        LinearClock line = DomainClocks.offsetLine(zeros);
        // The first quarter is zeros 0 and 1: the tight one (1) sets the start; the last quarter's are equal.
        assertTrue(maxError(line) <= 2, "error " + maxError(line));
        LinearClock naive = DomainClocks.offsetLine(List.of(zeros.get(0), zeros.get(7)));
        assertTrue(maxError(naive) > 40_000, "the wide one alone: " + maxError(naive));
    }

    @Test
    void aRoundTripIsOnePointEachWay() {
        MessagePairs.Direction[] both = DomainClocks.withExchanges(ELECTION_UP, ELECTION_DOWN,
                List.of(new Zero(1, 10, 20, 30)));
        assertEquals(3, both[0].n);
        assertEquals(10, both[0].sent[2]);
        assertEquals(20, both[0].received[2]);
        assertEquals(3, both[1].n);
        assertEquals(20, both[1].sent[2]);
        assertEquals(30, both[1].received[2]);
        assertEquals(2, ELECTION_UP.n, "the run's messages are left as they were");
    }

    @Test
    void aPairIsOnFewPointsWhenEitherDirectionHasFewerThanEight() {
        assertTrue(new ClockBasis("n", "p", "n against p", 3, 10, 2, "lr").fewPoints());
        assertFalse(new ClockBasis("n", "p", "n against p", 8, 0, 0, "lr").fewPoints());
        assertTrue(new ClockBasis("n", "p", "n against p", 0, 7, 100, "lr").line().endsWith("; few points"));
        assertTrue(new ClockBasis("n", "p", "n against p", 0, 7, 100, "lr").line()
                .startsWith("n against p: 0 calibration exchanges, 7 messages up, 100 down (7 points up, 100 down)"));
    }

    /**
     * End to end on a synthetic run with simulated clocks, whose round trips take 20–100 µs with the
     * reference's read anywhere inside: with the exchanges the profile keeps, every domain is placed
     * against the reference through them, and the error against the truth stays within one round
     * trip; without them (a profile from before), the profile says its clocks rest on messages alone.
     */
    @Test
    void aSyntheticRunIsPlacedThroughItsCalibration(@TempDir Path dir) throws Exception {
        SyntheticRun.Result run = SyntheticRun.generate(SyntheticRun.Spec.of(3, 2, 8, 6_000, 11), dir);
        Consolidated c = Consolidated.of(run, dir.resolve("freezer"), "bounded:2.2");
        assertTrue(Files.isDirectory(c.profile().dir().resolve(Profile.CALIBRATION)));
        long lambda = SyncQuality.minimumLatencyTicks(c.profile());
        for (SyncMethod m : List.of(SyncMethod.LR, SyncMethod.CH)) {
            PointSync.Derived d = PointSync.derive(c.profile(), m, dir.resolve(m.label()));
            assertEquals(3, d.basis().size(), d.basis().toString());
            for (ClockBasis b : d.basis()) {
                assertEquals(run.referenceDomain(), b.parent());
                assertTrue(b.exchanges() > 0, b.line());
                assertEquals(b.fewPoints(), d.info().problems().contains(m.label() + ": " + b.line()), b.line());
            }
            double max = SyncQuality.measure(Profile.open(dir.resolve(m.label())), m.label(), lambda).errorMaxNs();
            assertTrue(max < 100_000, m.label() + ": " + max + " ns");
        }
        try (Stream<Path> files = Files.list(c.profile().dir().resolve(Profile.CALIBRATION))) {
            for (Path f : files.toList()) {
                Files.delete(f);
            }
        }
        Files.delete(c.profile().dir().resolve(Profile.CALIBRATION));
        PointSync.Derived alone = PointSync.derive(c.profile(), SyncMethod.LR, dir.resolve("lr-messages"));
        assertTrue(alone.info().problems().stream().anyMatch(p -> p.contains("no calibration exchanges")),
                alone.info().problems().toString());
        assertTrue(alone.basis().stream().allMatch(b -> b.exchanges() == 0), alone.basis().toString());
    }
}
