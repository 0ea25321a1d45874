package dev.dprof.consolidator.analysis.stats;

import dev.dprof.consolidator.synthetic.TinyProfile;
import static dev.dprof.format.EventKind.BARRIER_ENTER;
import static dev.dprof.format.EventKind.BARRIER_EXIT;
import static dev.dprof.format.EventKind.ENTER;
import static dev.dprof.format.EventKind.ENTER_INSTANCE;
import static dev.dprof.format.EventKind.EXIT;
import static dev.dprof.format.EventKind.EXIT_THROW;
import static dev.dprof.format.EventKind.PROGRESS;
import static dev.dprof.format.EventKind.RECEIVE;
import static dev.dprof.format.EventKind.SEND;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.consolidator.analysis.stats.ProfileStatistics.BarrierWait;
import dev.dprof.consolidator.analysis.stats.ProfileStatistics.PeerFigures;
import dev.dprof.consolidator.analysis.stats.ProfileStatistics.RegionFigures;
import dev.dprof.consolidator.analysis.stats.ProfileStatistics.Result;
import java.nio.file.Path;
import java.util.List;
import org.apache.commons.numbers.fraction.BigFraction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tiny profiles whose figures were computed by hand (the arithmetic is in the comments). Unless a
 * test says otherwise the events' intervals are all [0, 0]: durations come from the raw ticks
 * and the slopes, never from {@code hi₂ − lo₁}.
 *
 * <p>The measured convention: an instance of {@code Δk} ticks lies in
 * {@code [max(0, Δk − 1)·slopeLow, (Δk + 1)·slopeHigh]} (a reading {@code k} stands for
 * {@code [k, k+1)}); per process the total is {@code [(ΣΔk − #{Δk ≥ 1})·slopeLow, (ΣΔk + n)·slopeHigh]}.
 * The probe-corrected figures keep {@code max(0, Δk − (nested + 1)·c) × [slopeLow, slopeHigh]}.
 */
class HandComputedStatisticsTest {
    @TempDir
    Path dir;

    /** Asserts {@code b} is the exact {@code [lo, hi]} rounded outward to doubles. */
    static void assertBound(String lo, String hi, Bound b) {
        BigFraction l = parse(lo);
        BigFraction h = parse(hi);
        assertTrue(BigFraction.from(b.lo()).compareTo(l) <= 0, b + " lo above " + lo);
        assertTrue(BigFraction.from(b.hi()).compareTo(h) >= 0, b + " hi below " + hi);
        assertEquals(l.doubleValue(), b.lo(), Math.ulp(l.doubleValue()), "lo of " + b);
        assertEquals(h.doubleValue(), b.hi(), Math.ulp(h.doubleValue()), "hi of " + b);
    }

    static BigFraction parse(String s) {
        int slash = s.indexOf('/');
        return slash < 0 ? BigFraction.of(Long.parseLong(s))
                : BigFraction.of(Long.parseLong(s.substring(0, slash)), Long.parseLong(s.substring(slash + 1)));
    }

    static RegionFigures region(Result r, String name) {
        return r.regions().stream().filter(f -> f.name().equals(name)).findFirst().orElseThrow(() ->
                new AssertionError("no region " + name + " in " + r.regions().stream().map(RegionFigures::name).toList()));
    }

    static RegionFigures caller(Result r, String caller, String name) {
        return r.callers().stream().filter(f -> f.caller().equals(caller) && f.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no " + caller + " → " + name + " in " + r.callers().stream()
                        .map(f -> f.caller() + " → " + f.name()).toList()));
    }

    @Test
    void durationsAreTickDifferencesTimesTheExactSlopesOfEachProcess() throws Exception {
        TinyProfile p = new TinyProfile(dir, false);
        int p0 = p.process("13/10", "3/2", 0);
        int p1 = p.process("1/1", "1/1", 0);
        int s0 = p.stream(p0);
        int s1 = p.stream(p1);
        int work = p.region("work");
        // Wild intervals: hi₂ − lo₁ would give 10⁶-ish durations.
        p.event(s0, ENTER, work, 100, 0, 1_000_000, 0, 0, 0)
                .event(s0, EXIT, work, 110, 5, 2_000_000, 0, 0, 0)
                .event(s1, ENTER_INSTANCE, work, 1000, 7, 9, 0, 3, 0)
                .event(s0, ENTER, work, 200, 2_000_001, 2_000_002, 0, 0, 0)
                .event(s0, EXIT_THROW, work, 203, 2_000_003, 3_000_000, 0, 0, 0)
                .event(s1, EXIT, work, 1005, 10, 3_000_000, 0, 0, 0);
        Result r = p.statistics();
        RegionFigures f = region(r, "work");
        assertEquals(3, f.count());
        assertEquals(0, f.open());
        Durations d = f.measured();
        // p0: Δk 10 and 3, Σ 13, 2 instances (both ≥ 1) → [(13 − 2)·13/10, (13 + 2)·3/2] = [143/10, 45/2];
        // p1: Δk 5 → [(5 − 1)·1, (5 + 1)·1] = [4, 6]. Total [143/10 + 4, 45/2 + 6] = [183/10, 57/2].
        assertBound("183/10", "57/2", d.total());
        // mean: total / 3 = [61/10, 19/2].
        assertBound("61/10", "19/2", d.mean());
        // min: p0 Δk 3 → [2·13/10, 4·3/2] = [13/5, 6], p1 Δk 5 → [4, 6] → [min(13/5, 4), min(6, 6)] = [13/5, 6];
        // max: p0 Δk 10 → [9·13/10, 11·3/2] = [117/10, 33/2], p1 [4, 6] → [117/10, 33/2].
        assertBound("13/5", "6", d.min());
        assertBound("117/10", "33/2", d.max());
        // No probe cost: nothing subtracted, and the corrected figures keep Δk × slopes (no ±1):
        // p0 Σ 13 → [169/10, 39/2], p1 5 → [5, 5]; total [219/10, 49/2], mean [73/10, 49/6];
        // min: p0 Δk 3 → [39/10, 9/2], p1 [5, 5] → [39/10, 9/2]; max: p0 Δk 10 → [13, 15], p1 [5, 5] → [13, 15].
        Durations c = f.corrected();
        assertEquals(3, c.count());
        assertBound("219/10", "49/2", c.total());
        assertBound("73/10", "49/6", c.mean());
        assertBound("39/10", "9/2", c.min());
        assertBound("13", "15", c.max());
        assertBound("0", "0", f.correction());
        assertEquals("BOUNDED", f.quality());
        assertEquals("BOUNDED", r.quality());
        assertEquals("bounded:1 (test)", r.assumption());
        assertNull(f.truth());
        assertEquals(3, r.totals().instances());
    }

    @Test
    void aReadingStandsForATickSoEmptyInstancesKeepOnlyAnUpperBound() throws Exception {
        TinyProfile p = new TinyProfile(dir, false);
        int p0 = p.process("13/10", "3/2", 0);
        int p1 = p.process("1/1", "1/1", 0);
        int s0 = p.stream(p0);
        int s1 = p.stream(p1);
        int z = p.region("z");
        // p0: Δk 0, 1, 4. p1: Δk 0 (its exit reads below its enter: counted as 0) and 2.
        p.at(s0, ENTER, z, 100).at(s0, EXIT, z, 100)
                .at(s0, ENTER, z, 200).at(s0, EXIT, z, 201)
                .at(s0, ENTER, z, 300).at(s0, EXIT, z, 304)
                .at(s1, ENTER, z, 50).at(s1, EXIT, z, 48)
                .at(s1, ENTER, z, 60).at(s1, EXIT, z, 62);
        Result r = p.statistics();
        RegionFigures f = region(r, "z");
        assertEquals(5, f.count());
        assertEquals(1, r.totals().backwardTicks());
        assertTrue(r.notes().stream().anyMatch(n -> n.contains("counted as 0")), r.notes().toString());
        Durations d = f.measured();
        // p0: Σ 5 over 3 instances, 2 of them ≥ 1 → [(5 − 2)·13/10, (5 + 3)·3/2] = [39/10, 12];
        // p1: Σ 2 over 2 instances, 1 of them ≥ 1 → [(2 − 1)·1, (2 + 2)·1] = [1, 4]. Total [49/10, 16].
        assertBound("49/10", "16", d.total());
        // mean: total / 5 = [49/50, 16/5].
        assertBound("49/50", "16/5", d.mean());
        // min: p0 Δk 0 → [0, 1·3/2], p1 Δk 0 → [0, 1·1] → [0, 1].
        assertBound("0", "1", d.min());
        // max: p0 Δk 4 → [3·13/10, 5·3/2] = [39/10, 15/2], p1 Δk 2 → [1, 3] → [39/10, 15/2].
        assertBound("39/10", "15/2", d.max());
        // Corrected (no probe cost): Δk × slopes, an empty instance exactly 0. p0 5·[13/10, 3/2] = [13/2, 15/2],
        // p1 [2, 2] → total [17/2, 19/2], mean [17/10, 19/10], min [0, 0], max p0 Δk 4 → [26/5, 6].
        Durations c = f.corrected();
        assertBound("17/2", "19/2", c.total());
        assertBound("17/10", "19/10", c.mean());
        assertBound("0", "0", c.min());
        assertBound("26/5", "6", c.max());
    }

    @Test
    void aRecursiveEntryNeitherCountsNorAddsTime() throws Exception {
        TinyProfile p = new TinyProfile(dir, false);
        int s = p.stream(p.process("3/2", "3/2", 0));
        int f = p.region("f");
        int g = p.region("g");
        int h = p.region("h");
        p.at(s, ENTER, f, 0).at(s, ENTER, f, 10).at(s, ENTER, f, 12).at(s, EXIT, f, 14).at(s, EXIT, f, 20)
                .at(s, EXIT, f, 30)
                // mutual recursion g → h → g: the outer g and the h count, the inner g does not
                .at(s, ENTER, g, 40).at(s, ENTER, h, 45).at(s, ENTER, g, 50).at(s, EXIT, g, 55).at(s, EXIT, h, 60)
                .at(s, EXIT, g, 70);
        Result r = p.statistics();
        // f: one instance of Δk 30 (0 → 30) → [29·3/2, 31·3/2] = [87/2, 93/2] reference ticks.
        assertEquals(1, region(r, "f").count());
        assertBound("87/2", "93/2", region(r, "f").measured().total());
        // g: the outer one, 40 → 70, Δk 30 → [87/2, 93/2].
        assertEquals(1, region(r, "g").count());
        assertBound("87/2", "93/2", region(r, "g").measured().total());
        // h: 45 → 60, Δk 15 → [14·3/2, 16·3/2] = [21, 24].
        assertEquals(1, region(r, "h").count());
        assertBound("21", "24", region(r, "h").measured().total());
        // Corrected (no probe cost): Δk × 3/2 → f 45, h 45/2.
        assertBound("45", "45", region(r, "f").corrected().total());
        assertBound("45/2", "45/2", region(r, "h").corrected().total());
        // The uncounted entries leave no caller pair behind (f → f, h → g).
        assertEquals(List.of("(top) → f", "(top) → g", "g → h"),
                r.callers().stream().map(c -> c.caller() + " → " + c.name()).sorted().toList());
    }

    @Test
    void callersAreTheInnermostOpenRegion() throws Exception {
        TinyProfile p = new TinyProfile(dir, false);
        int s = p.stream(p.process("13/10", "3/2", 0));
        int main = p.region("main");
        int work = p.region("work");
        int other = p.region("other");
        p.at(s, ENTER, main, 0).at(s, ENTER, work, 10).at(s, EXIT, work, 20)
                .at(s, ENTER, other, 25).at(s, ENTER, work, 30).at(s, EXIT, work, 36).at(s, EXIT, other, 40)
                .at(s, EXIT, main, 100)
                .at(s, ENTER, work, 200).at(s, EXIT, work, 201);
        Result r = p.statistics();
        // work: Δk 10 + 6 + 1 = 17 over 3 instances (all ≥ 1) → [(17 − 3)·13/10, (17 + 3)·3/2] = [91/5, 30].
        assertEquals(3, region(r, "work").count());
        assertBound("91/5", "30", region(r, "work").measured().total());
        assertEquals(1, caller(r, "main", "work").count());
        // main → work: Δk 10 → [9·13/10, 11·3/2] = [117/10, 33/2].
        assertBound("117/10", "33/2", caller(r, "main", "work").measured().total());
        // other → work: Δk 6 → [5·13/10, 7·3/2] = [13/2, 21/2].
        assertBound("13/2", "21/2", caller(r, "other", "work").measured().total());
        // (top) → work: Δk 1 → [max(0, 0)·13/10, 2·3/2] = [0, 3].
        assertBound("0", "3", caller(r, "(top)", "work").measured().total());
        // (top) → main: Δk 100 → [99·13/10, 101·3/2] = [1287/10, 303/2].
        assertBound("1287/10", "303/2", caller(r, "(top)", "main").measured().total());
        // main → other: 25 → 40, Δk 15 → [14·13/10, 16·3/2] = [91/5, 24].
        assertBound("91/5", "24", caller(r, "main", "other").measured().total());
        assertEquals(5, r.callers().size());
        // Regions sorted by corrected total (no probe cost: Δk × slopes), hi first: main (100·3/2 = 150),
        // work (17·3/2 = 51/2), other (15·3/2 = 45/2).
        assertBound("130", "150", region(r, "main").corrected().total());
        assertBound("221/10", "51/2", region(r, "work").corrected().total());
        assertBound("39/2", "45/2", region(r, "other").corrected().total());
        assertEquals(List.of("main", "work", "other"), r.regions().stream().map(RegionFigures::name).toList());
    }

    @Test
    void probeCostIsSubtractedPerInstanceForNestedEventsPlusOne() throws Exception {
        TinyProfile p = new TinyProfile(dir, false);
        int proc = p.process("13/10", "3/2", 2.5);
        int s = p.stream(proc);
        int a = p.region("a");
        int outer = p.region("outer");
        int inner = p.region("inner");
        // a #1: Δk 20, nested 2 (progress, send) → minus 3 × 2.5 = 7.5 → 12.5 ticks.
        // a #2: Δk 1, nested 0 → minus 2.5, clamped: 1 tick taken, 0 left.
        p.at(s, ENTER, a, 0).at(s, PROGRESS, -1, 5).event(s, SEND, -1, 8, 0, 0, 0, 1, 1).at(s, EXIT, a, 20)
                .at(s, ENTER, a, 100).at(s, EXIT, a, 101)
                // outer: Δk 12, nested 2 (inner's enter and exit) → 12 − 7.5 = 4.5; inner: Δk 8 − 2.5 = 5.5.
                .at(s, ENTER, outer, 200).at(s, ENTER, inner, 202).at(s, EXIT, inner, 210).at(s, EXIT, outer, 212);
        Result r = p.statistics();
        RegionFigures fa = region(r, "a");
        assertEquals(2, fa.count());
        // measured: Σ Δk 21 over 2 instances (both ≥ 1) → [(21 − 2)·13/10, (21 + 2)·3/2] = [247/10, 69/2]
        assertBound("247/10", "69/2", fa.measured().total());
        // min: Δk 1 → [0, 2·3/2] = [0, 3]; max: Δk 20 → [19·13/10, 21·3/2] = [247/10, 63/2].
        assertBound("0", "3", fa.measured().min());
        assertBound("247/10", "63/2", fa.measured().max());
        // corrected: 12.5 + 0 → [12.5·1.3, 12.5·1.5] = [65/4, 75/4], mean [65/8, 75/8]
        assertBound("65/4", "75/4", fa.corrected().total());
        assertBound("65/8", "75/8", fa.corrected().mean());
        assertBound("0", "0", fa.corrected().min());
        assertBound("65/4", "75/4", fa.corrected().max());
        // taken off: 7.5 + 1 = 8.5 ticks → [11.05, 12.75]
        assertBound("221/20", "51/4", fa.correction());
        assertBound("117/20", "27/4", region(r, "outer").corrected().total());
        assertBound("143/20", "33/4", region(r, "inner").corrected().total());
        assertBound("39/4", "45/4", region(r, "outer").correction());
        // Overall: the sum over regions, 8.5 + 7.5 + 2.5 = 18.5 ticks → [24.05, 27.75].
        assertBound("481/20", "111/4", r.totals().probeCorrection());
        // Every one of the 10 events cost 2.5 ticks: 25 → [32.5, 37.5].
        assertBound("65/2", "75/2", r.totals().probeCost());
        assertEquals(10, r.totals().events());
    }

    @Test
    void anInstanceStillOpenAtTheEndIsReportedNotInvented() throws Exception {
        TinyProfile p = new TinyProfile(dir, false);
        int s = p.stream(p.process("1/1", "1/1", 0));
        int t = p.stream(0);
        int main = p.region("main");
        int work = p.region("work");
        p.at(s, ENTER, main, 0).at(s, ENTER, work, 5).at(s, EXIT, work, 9).at(s, ENTER, work, 20)
                .at(t, ENTER, work, 3).at(t, EXIT, work, 4);
        Result r = p.statistics();
        RegionFigures m = region(r, "main");
        assertEquals(0, m.count());
        assertEquals(1, m.open());
        assertEquals(Durations.NONE, m.measured());
        RegionFigures w = region(r, "work");
        assertEquals(2, w.count());
        assertEquals(1, w.open());
        // Δk 4 (5 → 9) and 1 (3 → 4), Σ 5 over 2 instances (both ≥ 1), slope 1 → [5 − 2, 5 + 2] = [3, 7].
        assertBound("3", "7", w.measured().total());
        // Corrected (no probe cost): Δk × 1 → [5, 5].
        assertBound("5", "5", w.corrected().total());
        assertEquals(2, r.totals().open());
        assertEquals(1, caller(r, "main", "work").open());
        assertTrue(r.notes().stream().anyMatch(n -> n.contains("still open")), r.notes().toString());
    }

    @Test
    void exitsWithoutTheirEnterAreLeftOut() throws Exception {
        TinyProfile p = new TinyProfile(dir, false);
        int s = p.stream(p.process("1/1", "1/1", 0));
        int a = p.region("a");
        int b = p.region("b");
        // b's exit was lost: a's exit closes b's frame too; then an exit of b with nothing open.
        p.at(s, ENTER, a, 0).at(s, ENTER, b, 2).at(s, EXIT, a, 10).at(s, EXIT, b, 11);
        Result r = p.statistics();
        assertEquals(1, region(r, "a").count());
        // a: Δk 10, slope 1 → [9, 11].
        assertBound("9", "11", region(r, "a").measured().total());
        assertFalse(r.regions().stream().anyMatch(f -> f.name().equals("b") && f.count() > 0));
        assertEquals(1, r.totals().unpairedEnters());
        assertEquals(1, r.totals().unpairedExits());
    }

    @Test
    void truthIsReportedBesideTheBounds() throws Exception {
        TinyProfile p = new TinyProfile(dir, true);
        int s = p.stream(p.process("99/100", "101/100", 0));
        int a = p.region("a");
        p.event(s, ENTER, a, 1000, 990, 1010, 1000, 0, 0).event(s, EXIT, a, 1100, 1090, 1110, 1100, 0, 0)
                .event(s, ENTER, a, 2000, 1990, 2010, 2001, 0, 0).event(s, EXIT, a, 2050, 2040, 2060, 2050, 0, 0);
        Result r = p.statistics();
        RegionFigures f = region(r, "a");
        // Δk 100 and 50, Σ 150 over 2 instances → [(150 − 2)·99/100, (150 + 2)·101/100] = [3663/25, 3838/25]
        // = [146.52, 153.52]; mean [3663/50, 1919/25].
        Durations d = f.measured();
        assertBound("3663/25", "3838/25", d.total());
        assertBound("3663/50", "1919/25", d.mean());
        // min: Δk 50 → [49·99/100, 51·101/100] = [4851/100, 5151/100]; max: Δk 100 → [9801/100, 10201/100].
        assertBound("4851/100", "5151/100", d.min());
        assertBound("9801/100", "10201/100", d.max());
        // Truth: 1100 − 1000 = 100 and 2050 − 2001 = 49.
        assertEquals(new TruthDurations(2, 149, 74.5, 49, 100), f.truth());
        assertTrue(d.total().contains(f.truth().total()));
        assertTrue(d.mean().contains(f.truth().mean()));
        assertTrue(d.min().contains(f.truth().min()));
        assertTrue(d.max().contains(f.truth().max()));
        // Corrected (no probe cost): Σ 150 × [99/100, 101/100] = [297/2, 303/2].
        assertBound("297/2", "303/2", f.corrected().total());
    }

    @Test
    void anUnboundedRateGivesNoUpperBound() throws Exception {
        TinyProfile p = new TinyProfile(dir, false);
        int s = p.stream(p.process(null, null, 1, "CONTRADICTED"));
        int a = p.region("a");
        p.at(s, ENTER, a, 0).at(s, EXIT, a, 10);
        Result r = p.statistics();
        Bound total = region(r, "a").measured().total();
        assertEquals(0, total.lo());
        assertFalse(total.bounded());
        assertEquals("CONTRADICTED", r.quality());
        assertTrue(r.notes().stream().anyMatch(n -> n.contains("no upper bound")), r.notes().toString());
    }

    @Test
    void messagesArePairedPerProcessPairAndBoundedByTheDifferenceOfIntervals() throws Exception {
        TinyProfile p = new TinyProfile(dir, true);
        int p0 = p.process("1/1", "1/1", 0);
        int p1 = p.process("1/1", "1/1", 0);
        int a = p.stream(p0);
        int b = p.stream(p1);
        // (1,7): send [100, 110] truth 105, receive [130, 135] truth 131 → [20, 35], truth 26.
        // (1,8): send [200, 210] truth 209, receive [205, 208] truth 207... the truth must be causal:
        // receive truth 212 is outside [205, 208]; use receive [205, 215] truth 212 → [0, 15], truth 3.
        p.event(a, SEND, -1, 0, 100, 110, 105, 1, 7)
                .event(b, RECEIVE, -1, 0, 130, 135, 131, 1, 7)
                .event(a, SEND, -1, 0, 200, 210, 209, 1, 8)
                .event(b, RECEIVE, -1, 0, 205, 215, 212, 1, 8)
                .event(b, RECEIVE, -1, 0, 300, 300, 300, 1, 99)   // nothing sent
                .event(b, SEND, -1, 0, 310, 310, 310, 2, 5)       // never received
                .event(a, SEND, -1, 0, 320, 320, 320, 3, 3)       // sent twice while in flight: ambiguous
                .event(a, SEND, -1, 0, 321, 321, 321, 3, 3)
                .event(b, RECEIVE, -1, 0, 330, 330, 330, 3, 3);
        Result r = p.statistics();
        assertEquals(1, r.peers().size());
        PeerFigures f = r.peers().get(0);
        assertEquals(p0, f.from());
        assertEquals(p1, f.to());
        Durations d = f.transmission();
        assertEquals(2, d.count());
        assertBound("20", "50", d.total());
        assertBound("10", "25", d.mean());
        assertBound("0", "15", d.min());
        assertBound("20", "35", d.max());
        assertEquals(new TruthDurations(2, 29, 14.5, 3, 26), f.transmissionTruth());
        assertEquals(2, r.totals().matchedMessages());
        assertEquals(1, r.totals().unmatchedSends());
        assertEquals(2, r.totals().unmatchedReceives());
        assertEquals(2, r.totals().ambiguousMessages());
        assertEquals(0, f.barrierInstances());
    }

    @Test
    void barrierDelayIsHowLongEachProcessesLastThreadWaitedForTheOthersLast() throws Exception {
        TinyProfile p = new TinyProfile(dir, true);
        int p0 = p.process("1/1", "1/1", 0);
        int p1 = p.process("1/1", "1/1", 0);
        int a = p.stream(p0);
        int a2 = p.stream(p0);
        int b = p.stream(p1);
        int barrier = p.region("barrier", "barrier");
        // M_0 ∈ [max(100,150), max(110,152)] = [150, 152] (truth 151); M_1 ∈ [300, 305] (truth 302).
        // p0 waits for p1: [300 − 152, 305 − 150] = [148, 155], truth 151; p1 for p0: [0, 0], truth 0.
        // Waits until the last enter [300, 305]: p0 [148, 155] truth 151; p1 [0, 5] truth 0.
        p.event(a, BARRIER_ENTER, barrier, 1000, 100, 110, 105, 42, 3)
                .event(a2, BARRIER_ENTER, barrier, 2000, 150, 152, 151, 42, 3)
                .event(b, BARRIER_ENTER, barrier, 5000, 300, 305, 302, 42, 3)
                .event(b, BARRIER_EXIT, barrier, 5010, 310, 315, 312, 42, 3)
                .event(a, BARRIER_EXIT, barrier, 1250, 311, 316, 313, 42, 3)
                .event(a2, BARRIER_EXIT, barrier, 2200, 312, 316, 314, 42, 3)
                // a second instance that never completes (2 of 3 enters, no exit)
                .event(a, BARRIER_ENTER, barrier, 1300, 400, 401, 400, 43, 3)
                .event(b, BARRIER_ENTER, barrier, 5100, 400, 401, 400, 43, 3);
        Result r = p.statistics();
        PeerFigures w01 = r.peers().stream().filter(f -> f.from() == p0 && f.to() == p1).findFirst().orElseThrow();
        PeerFigures w10 = r.peers().stream().filter(f -> f.from() == p1 && f.to() == p0).findFirst().orElseThrow();
        assertEquals(1, w01.barrierInstances());
        assertBound("148", "155", w01.syncDelay());
        assertEquals(151L, w01.syncDelayTruth());
        assertBound("0", "0", w10.syncDelay());
        assertEquals(0L, w10.syncDelayTruth());
        BarrierWait wait0 = r.barrierWaits().stream().filter(w -> w.process() == p0).findFirst().orElseThrow();
        BarrierWait wait1 = r.barrierWaits().stream().filter(w -> w.process() == p1).findFirst().orElseThrow();
        assertBound("148", "155", wait0.delay());
        assertEquals(151L, wait0.truth());
        assertBound("0", "5", wait1.delay());
        assertEquals(0L, wait1.truth());
        assertEquals(1, r.totals().barrierInstances());
        assertEquals(1, r.totals().unfinishedBarrierInstances());
        // The barrier region's own instances: Δk 250, 200, 10; the instance-43 enters are still open.
        // Σ 460 over 3 instances (all ≥ 1), slope 1 → [460 − 3, 460 + 3] = [457, 463].
        RegionFigures f = region(r, "barrier");
        assertEquals(3, f.count());
        assertEquals(2, f.open());
        assertBound("457", "463", f.measured().total());
        assertBound("460", "460", f.corrected().total());
    }

    @Test
    void withAWindowOnlyInstancesCertainlyInsideCount() throws Exception {
        TinyProfile p = new TinyProfile(dir, false).window(100, 200);
        int s = p.stream(p.process("1/1", "1/1", 0));
        int a = p.region("a");
        p.event(s, ENTER, a, 0, 90, 95, 0, 0, 0).event(s, EXIT, a, 10, 120, 125, 0, 0, 0)   // starts before
                .event(s, ENTER, a, 20, 130, 131, 0, 0, 0).event(s, EXIT, a, 30, 140, 141, 0, 0, 0) // inside
                .event(s, ENTER, a, 40, 190, 195, 0, 0, 0).event(s, EXIT, a, 50, 199, 201, 0, 0, 0); // may end after
        Result r = p.statistics();
        RegionFigures f = region(r, "a");
        assertEquals(1, f.count());
        assertEquals(2, f.outsideWindow());
        // The inside one: Δk 10 (20 → 30), slope 1 → [9, 11].
        assertBound("9", "11", f.measured().total());
    }

    /**
     * A rank-specific region: process 0 fixed body's instance at start (property), process 1 gives
     * it per call (argument). Each instance id gets its own figures beside the region's, named
     * {@code body[id]}: process 0's 10 + 20 ticks as body[7], process 1's 40 as body[3] and 5 as body[4].
     */
    @Test
    void aRankSpecificRegionHasFiguresPerInstance() throws Exception {
        TinyProfile p = new TinyProfile(dir, false);
        int p0 = p.process("1/1", "1/1", 0);
        int p1 = p.process("1/1", "1/1", 0);
        p.instance(p0, "body", 7);
        int s0 = p.stream(p0);
        int s1 = p.stream(p1);
        int body = p.region("body");
        p.at(s0, ENTER, body, 100).at(s0, EXIT, body, 110).at(s0, ENTER, body, 200).at(s0, EXIT, body, 220)
                .event(s1, ENTER_INSTANCE, body, 1000, 0, 0, 0, 3, 0).at(s1, EXIT, body, 1040)
                .event(s1, ENTER_INSTANCE, body, 2000, 0, 0, 0, 4, 0).at(s1, EXIT, body, 2005);
        Result r = p.statistics();
        assertEquals(4, region(r, "body").count());
        assertEquals(List.of("body[3]", "body[4]", "body[7]"), r.instances().stream().map(RegionFigures::name).toList());
        RegionFigures seven = r.instances().get(2);
        assertEquals(2, seven.count());
        // (10 − 1) + (20 − 1) .. (10 + 1) + (20 + 1)
        assertBound("28", "32", seven.measured().total());
        assertBound("39", "41", r.instances().get(0).measured().total());
        assertBound("4", "6", r.instances().get(1).measured().total());
    }
}
