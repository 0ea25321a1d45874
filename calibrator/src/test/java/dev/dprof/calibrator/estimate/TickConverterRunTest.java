package dev.dprof.calibrator.estimate;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.format.calibration.DomainCalibration;
import dev.dprof.format.calibration.Zero;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The fast path of {@link TickConverter#convertSorted} — a chunk converted with the constants of
 * the run kept from the chunk before, moved on where the chunk leaves it
 * ({@link DomainConversion#runAt}) — must give exactly the general path's bounds and counts. Randomized: clocks with drift, zeros with wide and tight
 * round trips, message points that make many envelope pieces, offsets near both ends of the long
 * range, and chunks of every size that step, jump, leave the span and go back.
 */
class TickConverterRunTest {
    private static final long HZ = 1_000_000_000L;
    private static final DriftModel MODEL = new DriftModel.BoundedDrift(1);

    /** A clock {@code offset + t·num/den} over real ticks t, exact in longs for the ranges used here. */
    record Clock(String id, long offset, long num, long den) {
        long read(long t) {
            return offset + t / den * num + t % den * num / den;
        }

        double rate() {
            return (double) num / den;
        }
    }

    @Test
    void aChunkInsideTheRunBeforeGetsTheGeneralPathsBounds() throws CalibrationException {
        long fastChunks = 0;
        long chunks = 0;
        for (long seed = 1; seed <= 60; seed++) {
            long[] counts = compare(seed);
            chunks += counts[0];
            fastChunks += counts[1];
        }
        // The comparison is only worth something if the fast path ran, and the general path too.
        assertTrue(fastChunks > chunks / 4, fastChunks + " of " + chunks + " chunks took the fast path");
        assertTrue(fastChunks < chunks, "every chunk took the fast path");
    }

    /** One random calibration and tick stream; returns {chunks, chunks inside the run before}. */
    private static long[] compare(long seed) throws CalibrationException {
        SplittableRandom random = new SplittableRandom(seed);
        long span = (20 + random.nextInt(100)) * HZ;
        int edge = random.nextInt(4); // 0: ordinary offsets; 1, 2: node near the top, the bottom; 3: parent near the top
        long den = 1 << 20;
        Clock parent = clock("ref", random, den, edge == 3 ? 1 : 0, span);
        Clock node = clock("node", random, den, edge == 1 ? 1 : edge == 2 ? -1 : 0, span);
        long every = (1 + random.nextInt(6)) * HZ;
        long rtt = random.nextBoolean() ? 100_000 : 20;
        List<Zero> zeros = new ArrayList<>();
        for (long t = 0; t <= span; t += every / 2 + random.nextLong(every)) {
            long t1 = t + random.nextLong(1000);
            long ta = t1 + 1 + random.nextLong(rtt);
            zeros.add(new Zero(zeros.size(), node.read(t1), parent.read(ta), node.read(t1 + rtt + 2)));
        }
        CalibrationSet set = CalibrationSet.of(List.of(file(parent, Optional.empty(), List.of()),
                file(node, Optional.of(parent), zeros)), MODEL);
        if (random.nextBoolean()) {
            // Matched messages, in both directions, as points: many more envelope pieces.
            List<LinePoint> points = new ArrayList<>();
            for (int m = random.nextInt(2000); m > 0; m--) {
                long send = random.nextLong(span);
                long latency = 5_000 + random.nextLong(50_000);
                points.add(random.nextBoolean()
                        ? Constraints.sentFromNode(node.read(send), parent.read(send + latency) + 1)
                        : Constraints.receivedByNode(node.read(send + latency), parent.read(send)));
            }
            set = set.withPoints(Map.of("node", points));
        }
        TickConverter fast = set.converter("node");
        long outside = 0;
        long unbounded = 0;
        long firstBounded = Long.MAX_VALUE;
        long lastBounded = Long.MIN_VALUE;
        long meanGap = 1L << (4 + random.nextInt(26));
        long t = -2 * every;
        long[] ticks = new long[256];
        long[] lo = new long[256];
        long[] hi = new long[256];
        long[] loRef = new long[256];
        long[] hiRef = new long[256];
        long[] counts = new long[2];
        while (t < span + 2 * every && counts[0] < 3000) {
            int n = 1 + random.nextInt(random.nextBoolean() ? 8 : 256);
            int step = random.nextInt(20);
            if (step == 0) {
                t -= random.nextLong(Math.max(1, 50 * meanGap)); // a later batch that starts earlier
            } else if (step == 1) {
                t += random.nextLong(span / 50); // a thread that slept
            }
            for (int i = 0; i < n; i++) {
                t += random.nextLong(2 * meanGap);
                ticks[i] = node.read(t);
            }
            Arrays.sort(ticks, 0, n);
            DomainConversion.Run run = runOf(fast);
            boolean inside = run.from < run.to && ticks[0] >= run.from && ticks[n - 1] < run.to;
            int bounded = fast.convertSorted(ticks, n, lo, hi);
            TickConverter general = set.converter("node"); // fresh: no run kept
            int boundedRef = general.convertSorted(ticks, n, loRef, hiRef);
            String where = "seed " + seed + ", chunk " + counts[0] + " from tick " + ticks[0];
            assertEquals(boundedRef, bounded, where);
            assertArrayEquals(Arrays.copyOf(loRef, n), Arrays.copyOf(lo, n), where);
            assertArrayEquals(Arrays.copyOf(hiRef, n), Arrays.copyOf(hi, n), where);
            outside += general.outsideSpan();
            unbounded += general.unbounded();
            firstBounded = Math.min(firstBounded, general.firstBounded());
            lastBounded = Math.max(lastBounded, general.lastBounded());
            counts[0]++;
            counts[1] += inside ? 1 : 0;
        }
        assertEquals(outside, fast.outsideSpan(), "seed " + seed);
        assertEquals(unbounded, fast.unbounded(), "seed " + seed);
        assertEquals(firstBounded, fast.firstBounded(), "seed " + seed);
        assertEquals(lastBounded, fast.lastBounded(), "seed " + seed);
        return counts;
    }

    /** A copy of the stretch of the converter's kept run, to tell which path a chunk takes. */
    private static DomainConversion.Run runOf(TickConverter converter) {
        DomainConversion.Run copy = new DomainConversion.Run();
        copy.from = converter.keptRun().from;
        copy.to = converter.keptRun().to;
        return copy;
    }

    /**
     * A clock of rate 1.23–1.40 (in {@code num/den}); {@code edge} 1 or −1 puts its readings over
     * the run within 2⁴⁰ of the top or the bottom of the long range.
     */
    private static Clock clock(String id, SplittableRandom random, long den, int edge, long span) {
        long num = (long) ((1.23 + random.nextDouble() * 0.17) * den);
        long reach = (span + 4 * 6 * HZ) / den * num + num;
        long offset = edge > 0 ? Long.MAX_VALUE - (1L << 40) - 2 * reach
                : edge < 0 ? Long.MIN_VALUE + (1L << 40) + 2 * reach : random.nextLong(1L << 44) - (1L << 43);
        return new Clock(id, offset, num, den);
    }

    private static DomainCalibration file(Clock c, Optional<Clock> parent, List<Zero> zeros) {
        return new DomainCalibration(c.id(), parent.map(Clock::id), "sim", "rdtsc", c.rate() * HZ, Optional.empty(),
                zeros, true);
    }
}
