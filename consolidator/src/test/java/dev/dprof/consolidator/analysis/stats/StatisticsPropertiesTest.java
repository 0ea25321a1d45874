package dev.dprof.consolidator.analysis.stats;

import dev.dprof.consolidator.synthetic.TinyProfile;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.consolidator.analysis.stats.ProfileStatistics.PeerFigures;
import dev.dprof.consolidator.analysis.stats.ProfileStatistics.RegionFigures;
import dev.dprof.consolidator.analysis.stats.ProfileStatistics.Result;
import dev.dprof.format.EventKind;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.apache.commons.numbers.fraction.BigFraction;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Random programs run on a simulated timeline: reference time {@code T} (the truth), each process
 * reading it through its own clock {@code k = floor(T / F)} with an exact rational rate {@code F}
 * inside the process's slope bounds, intervals {@code [T − u, T + v]}. Threads enter and leave
 * random regions (recursion included), pass progress points, send and receive messages; some
 * instances stay open. The generator knows every instance, so the statistics are checked against
 * an oracle summing exact rationals instance by instance, with the statistics' convention: an
 * instance of {@code Δk} local ticks measures {@code [max(0, Δk − 1)·slopeLow, (Δk + 1)·slopeHigh]}
 * (a reading {@code k} stands for {@code [k, k+1)}), its probe-corrected duration
 * {@code max(0, Δk − (nested + 1)·c) × [slopeLow, slopeHigh]}. And against the truth, exactly:
 * the true reference span {@code ΔT} of an instance lies strictly within {@code (Δk ± 1)·F} with
 * {@code slopeLow ≤ F ≤ slopeHigh}, so every measured figure (total, mean, min, max) contains its
 * truth with no allowance; a transmission total likewise.
 */
class StatisticsPropertiesTest {
    private static final int REGIONS = 4;

    static LongStream seeds() {
        return LongStream.rangeClosed(1, 60);
    }

    /** The oracle's record of one region (or caller → region) instance. */
    private record Instance(int process, int region, int caller, long ticks, long nested, long truth) {
    }

    /** A frame of the generator's stack. */
    private record Frame(int region, int caller, boolean counted, long tick, long truth, long seq) {
    }

    private record Pending(int process, long key, long lo, long hi, long truth) {
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void figuresMatchTheOracleAndContainTheTruth(long seed, @TempDir Path dir) throws Exception {
        SplittableRandom rnd = new SplittableRandom(seed);
        TinyProfile p = new TinyProfile(dir, true);
        int processes = 1 + rnd.nextInt(3);
        BigFraction[] rate = new BigFraction[processes];
        BigFraction[] low = new BigFraction[processes];
        BigFraction[] high = new BigFraction[processes];
        long[] costX1024 = new long[processes];
        for (int i = 0; i < processes; i++) {
            long num = 500 + rnd.nextInt(1500);
            rate[i] = BigFraction.of(num, 1000);
            low[i] = BigFraction.of(num - rnd.nextInt(30), 1000);
            high[i] = BigFraction.of(num + rnd.nextInt(30), 1000);
            costX1024[i] = 256L * rnd.nextInt(10);
            p.process(low[i].getNumerator() + "/" + low[i].getDenominator(),
                    high[i].getNumerator() + "/" + high[i].getDenominator(), costX1024[i] / 1024.0);
        }
        int streams = processes + rnd.nextInt(2 * processes + 1);
        int[] processOf = new int[streams];
        for (int s = 0; s < streams; s++) {
            processOf[s] = s < processes ? s : rnd.nextInt(processes);
            p.stream(processOf[s]);
        }
        for (int r = 0; r < REGIONS; r++) {
            p.region("r" + r);
        }
        List<List<Frame>> stacks = new ArrayList<>();
        long[] seq = new long[streams];
        for (int s = 0; s < streams; s++) {
            stacks.add(new ArrayList<>());
        }
        List<Instance> instances = new ArrayList<>();
        List<Pending> pending = new ArrayList<>();
        Map<Long, long[]> transmission = new HashMap<>();   // from*P+to → {count, truth total}
        long key = 0;
        long t = 1_000 + rnd.nextInt(1_000);
        int steps = 100 + rnd.nextInt(500);
        for (int step = 0; step < steps; step++) {
            t += 1 + rnd.nextInt(40);
            int s = rnd.nextInt(streams);
            int proc = processOf[s];
            long tick = BigFraction.of(t).divide(rate[proc]).bigDecimalValue(0, java.math.RoundingMode.FLOOR).longValueExact();
            long lo = t - rnd.nextInt(15);
            long hi = t + rnd.nextInt(15);
            List<Frame> stack = stacks.get(s);
            int action = rnd.nextInt(100);
            if (action < 40 || action < 75 && stack.isEmpty()) {
                int r = rnd.nextInt(REGIONS);
                boolean counted = stack.stream().noneMatch(f -> f.region() == r);
                int caller = stack.isEmpty() ? -1 : stack.get(stack.size() - 1).region();
                stack.add(new Frame(r, caller, counted, tick, t, seq[s]));
                p.event(s, rnd.nextBoolean() ? EventKind.ENTER : EventKind.ENTER_INSTANCE, r, tick, lo, hi, t, 7, 0);
            } else if (action < 75) {
                Frame f = stack.remove(stack.size() - 1);
                if (f.counted()) {
                    instances.add(new Instance(proc, f.region(), f.caller(), tick - f.tick(), seq[s] - f.seq() - 1,
                            t - f.truth()));
                }
                p.event(s, rnd.nextInt(4) == 0 ? EventKind.EXIT_THROW : EventKind.EXIT, f.region(), tick, lo, hi, t, 0, 0);
            } else if (action < 85 || action >= 92 && pending.isEmpty()) {
                p.event(s, EventKind.PROGRESS, -1, tick, lo, hi, t, 1, 0);
            } else if (action < 92) {
                pending.add(new Pending(proc, ++key, lo, hi, t));
                p.event(s, EventKind.SEND, -1, tick, lo, hi, t, 9, key);
            } else {
                Pending m = pending.remove(rnd.nextInt(pending.size()));
                long[] sums = transmission.computeIfAbsent((long) m.process() * processes + proc, k -> new long[2]);
                sums[0]++;
                sums[1] += t - m.truth();
                p.event(s, EventKind.RECEIVE, -1, tick, lo, hi, t, 9, m.key());
            }
            seq[s]++;
        }
        Result r = p.statistics();

        // Regions: exact oracle, open instances, truth containment.
        long open = 0;
        for (int region = 0; region < REGIONS; region++) {
            int reg = region;
            long stillOpen = stacks.stream().flatMap(List::stream).filter(f -> f.counted() && f.region() == reg).count();
            open += stillOpen;
            List<Instance> mine = instances.stream().filter(i -> i.region() == reg).toList();
            RegionFigures f = r.regions().stream().filter(x -> x.name().equals("r" + reg)).findFirst().orElse(null);
            if (mine.isEmpty() && stillOpen == 0) {
                assertTrue(f == null, "region r" + reg + " has no instance");
                continue;
            }
            assertNotNull(f, "r" + reg);
            assertEquals(stillOpen, f.open(), "open r" + reg);
            if (mine.isEmpty()) {
                assertEquals(Durations.NONE, f.measured());
                continue;
            }
            check(f, mine, low, high, costX1024);
        }
        assertEquals(open, r.totals().open());
        assertEquals(instances.size(), r.totals().instances());
        Map<Long, List<Instance>> byCaller = new HashMap<>();
        for (Instance i : instances) {
            byCaller.computeIfAbsent(((long) i.caller() << 8) | i.region(), k -> new ArrayList<>()).add(i);
        }
        long callerRows = r.callers().stream().filter(c -> c.count() > 0).count();
        assertEquals(byCaller.size(), callerRows);
        for (List<Instance> mine : byCaller.values()) {
            Instance any = mine.get(0);
            String caller = any.caller() < 0 ? ProfileStatistics.TOP : "r" + any.caller();
            RegionFigures f = r.callers().stream().filter(c -> c.caller().equals(caller) && c.name().equals("r" + any.region()))
                    .findFirst().orElseThrow();
            check(f, mine, low, high, costX1024);
        }

        // Messages: counts per pair; the truth inside the difference of intervals, exactly.
        long matched = 0;
        for (Map.Entry<Long, long[]> e : transmission.entrySet()) {
            int from = (int) (e.getKey() / processes);
            int to = (int) (e.getKey() % processes);
            PeerFigures f = r.peers().stream().filter(x -> x.from() == from && x.to() == to).findFirst().orElseThrow();
            assertEquals(e.getValue()[0], f.transmission().count());
            assertEquals(e.getValue()[1], f.transmissionTruth().total());
            assertTrue(f.transmission().total().contains(e.getValue()[1]), f.transmission() + " truth " + e.getValue()[1]);
            assertTrue(f.transmission().min().contains(f.transmissionTruth().min()));
            assertTrue(f.transmission().max().contains(f.transmissionTruth().max()));
            matched += e.getValue()[0];
        }
        assertEquals(matched, r.totals().matchedMessages());
        assertEquals(pending.size(), r.totals().unmatchedSends());
    }

    /** Exact figures from the instances one by one, and the truth inside every measured figure. */
    private static void check(RegionFigures f, List<Instance> mine, BigFraction[] low, BigFraction[] high, long[] costX1024) {
        String what = f.caller() + " → " + f.name();
        assertEquals(mine.size(), f.count(), what);
        BigFraction lo = BigFraction.ZERO;
        BigFraction hi = BigFraction.ZERO;
        BigFraction rawLo = BigFraction.ZERO;
        BigFraction rawHi = BigFraction.ZERO;
        BigFraction cLo = BigFraction.ZERO;
        BigFraction cHi = BigFraction.ZERO;
        BigFraction minLo = null;
        BigFraction minHi = null;
        BigFraction maxLo = null;
        BigFraction maxHi = null;
        BigFraction corrMaxHi = null;
        long truth = 0;
        long truthMin = Long.MAX_VALUE;
        long truthMax = Long.MIN_VALUE;
        for (Instance i : mine) {
            // The measured bound of one instance: [max(0, Δk − 1)·slopeLow, (Δk + 1)·slopeHigh].
            BigFraction l = low[i.process()].multiply(Math.max(0, i.ticks() - 1));
            BigFraction h = high[i.process()].multiply(i.ticks() + 1);
            rawLo = rawLo.add(low[i.process()].multiply(i.ticks()));
            rawHi = rawHi.add(high[i.process()].multiply(i.ticks()));
            lo = lo.add(l);
            hi = hi.add(h);
            minLo = minLo == null || l.compareTo(minLo) < 0 ? l : minLo;
            minHi = minHi == null || h.compareTo(minHi) < 0 ? h : minHi;
            maxLo = maxLo == null || l.compareTo(maxLo) > 0 ? l : maxLo;
            maxHi = maxHi == null || h.compareTo(maxHi) > 0 ? h : maxHi;
            BigFraction net = BigFraction.of(i.ticks()).subtract(BigFraction.of((i.nested() + 1) * costX1024[i.process()], 1024));
            if (net.signum() < 0) {
                net = BigFraction.ZERO;
            }
            cLo = cLo.add(low[i.process()].multiply(net));
            BigFraction ch = high[i.process()].multiply(net);
            cHi = cHi.add(ch);
            corrMaxHi = corrMaxHi == null || ch.compareTo(corrMaxHi) > 0 ? ch : corrMaxHi;
            truth += i.truth();
            truthMin = Math.min(truthMin, i.truth());
            truthMax = Math.max(truthMax, i.truth());
            // The truth of each instance lies in its own bound, exactly.
            BigFraction ti = BigFraction.of(i.truth());
            assertTrue(l.compareTo(ti) <= 0 && ti.compareTo(h) <= 0, what + ": instance " + i + " truth outside ["
                    + l.doubleValue() + ", " + h.doubleValue() + "]");
        }
        Durations m = f.measured();
        assertExact(lo, hi, m.total(), what + " total");
        assertExact(lo.divide(mine.size()), hi.divide(mine.size()), m.mean(), what + " mean");
        assertExact(minLo, minHi, m.min(), what + " min");
        assertExact(maxLo, maxHi, m.max(), what + " max");
        assertExact(cLo, cHi, f.corrected().total(), what + " corrected total");
        assertTrue(BigFraction.from(f.corrected().max().hi()).compareTo(corrMaxHi) >= 0, what);
        // What the correction took off: Σ Δk × slopes less the corrected total (the ±1 is not part of it).
        assertExact(rawLo.subtract(cLo), rawHi.subtract(cHi), f.correction(), what + " correction");
        assertEquals(new TruthDurations(mine.size(), truth, (double) truth / mine.size(), truthMin, truthMax), f.truth(),
                what);
        // The truth inside the measured figures, exactly: no allowance.
        BigFraction t = BigFraction.of(truth);
        assertTrue(lo.compareTo(t) <= 0 && t.compareTo(hi) <= 0,
                what + ": truth " + truth + " outside exact [" + lo.doubleValue() + ", " + hi.doubleValue() + "]");
        assertTrue(m.total().contains(truth), what + ": truth " + truth + " outside " + m.total());
        assertTrue(m.mean().contains(f.truth().mean()), what + ": mean truth " + f.truth().mean() + " outside " + m.mean());
        assertTrue(m.min().contains(truthMin), what + ": min truth " + truthMin + " outside " + m.min());
        assertTrue(m.max().contains(truthMax), what + ": max truth " + truthMax + " outside " + m.max());
    }

    private static void assertExact(BigFraction lo, BigFraction hi, Bound b, String what) {
        assertTrue(BigFraction.from(b.lo()).compareTo(lo) <= 0, what + ": " + b + " lo above " + lo.doubleValue());
        assertTrue(BigFraction.from(b.hi()).compareTo(hi) >= 0, what + ": " + b + " hi below " + hi.doubleValue());
        assertEquals(lo.doubleValue(), b.lo(), Math.ulp(lo.doubleValue()), what);
        assertEquals(hi.doubleValue(), b.hi(), Math.ulp(hi.doubleValue()), what);
    }
}
