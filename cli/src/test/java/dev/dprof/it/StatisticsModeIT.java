package dev.dprof.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.consolidator.analysis.stats.Bound;
import dev.dprof.consolidator.read.ProcessQueue;
import dev.dprof.consolidator.read.RecordVisitor;
import dev.dprof.consolidator.read.RunDirs;
import dev.dprof.consolidator.stats.RunStatistics;
import dev.dprof.consolidator.statsmode.BoundedFigures;
import dev.dprof.consolidator.statsmode.Scale;
import dev.dprof.consolidator.statsmode.StatisticsModeRun;
import dev.dprof.format.EventKind;
import dev.dprof.format.TraceWindow;
import dev.dprof.it.ForkedJvm.Event;
import dev.dprof.it.ForkedJvm.Output;
import dev.dprof.it.ForkedJvm.Recording;
import dev.dprof.it.app.CountingApp;
import dev.dprof.testsupport.Jdks;
import dev.dprof.testsupport.TestSettings;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.commons.numbers.fraction.BigFraction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Statistics mode with the real agent, on JDK 17 and on a JDK 21 or later: {@link CountingApp}'s
 * regions in a run that records both its statistics and its trace ({@link TestSettings#ALSO_TRACE_AGENT_ARGUMENT})
 * have exactly the trace's counts, a total that contains the trace's exact sum, and quantiles that
 * contain the exact quantiles within the histogram's relative error; a run in statistics mode alone
 * writes no event but the drainer's marker, {@code dprof stats} prints its figures, and so does
 * {@code dprof analyze PROFILE stats} after {@code dprof consolidate}.
 */
class StatisticsModeIT {
    private static final String YAML = """
            mode: statistics
            statisticsIntervalMs: 100
            """ + CountingIT.YAML.substring(CountingIT.YAML.indexOf("regions:"));
    private static final List<String> REGIONS = List.of("count.compute", "count.static");

    @Test
    void statisticsMatchTheTraceOfTheSameRunOnJdk17(@TempDir Path tmp) throws Exception {
        bothAgree(tmp, ForkedJvm.app(CountingApp.class, tmp));
    }

    @Test
    void statisticsMatchTheTraceOfTheSameRunOnJdk25(@TempDir Path tmp) throws Exception {
        bothAgree(tmp, ForkedJvm.app(CountingApp.class, tmp).javaHome(Jdks.modern()));
    }

    @Test
    void statisticsAloneWriteNoEventsAndDprofStatsPrintsThem(@TempDir Path tmp) throws Exception {
        Path out = tmp.resolve("out");
        ForkedJvm.app(CountingApp.class, tmp).agent(ForkedJvm.config(tmp, YAML), out)
                .args(CountingIT.THREADS, CountingIT.CALLS).runOk();
        Recording run = Recording.readOnly(out);
        run.requireCleanEnd();
        assertTrue(run.header().statisticsMode() && !run.header().traced(), run.header()::toString);
        assertEquals(List.of(EventKind.PROBE_COST), run.events().stream().map(Event::kind).toList(),
                "only the drainer's probe-cost marker is an event");
        StatisticsModeRun stats = RunStatistics.of(RunDirs.expand(List.of(out))).statisticsMode();
        List<StatisticsModeRun.RegionResult> regions = stats.regions(stats.nominal());
        assertEquals(REGIONS, regions.stream().filter(r -> r.all().count() > 0)
                .map(StatisticsModeRun.RegionResult::name).sorted().toList(), "the regions with instances");
        for (StatisticsModeRun.RegionResult r : regions) {
            if (REGIONS.contains(r.name())) {
                assertEquals((long) CountingIT.THREADS * CountingIT.CALLS, r.all().count(), r.name());
            } else {
                assertTrue(r.points() > 0, r.name() + ": a handoff site's puts and takes, nothing else");
            }
        }
        Output printed = ForkedJvm.dprof(tmp, "stats", out).runOk();
        String text = String.join("\n", printed.stdout());
        assertTrue(text.contains("statistics mode: 1 processes, 0 events lost"), text);
        for (String region : REGIONS) {
            assertTrue(text.contains(region + " (plain): " + CountingIT.THREADS * CountingIT.CALLS + " instances"), text);
        }
        Path profile = tmp.resolve("profile");
        ForkedJvm.dprof(tmp, "consolidate", "--quiet", "--sync", "none", "--out", profile, out).runOk();
        String analyzed = String.join("\n", ForkedJvm.dprof(tmp, "analyze", profile, "stats").runOk().stdout());
        assertTrue(analyzed.contains("sound bounds on the reference clock"), analyzed);
        for (String region : REGIONS) {
            assertTrue(analyzed.contains(region + " (plain): " + CountingIT.THREADS * CountingIT.CALLS + " instances"),
                    analyzed);
        }
    }

    /**
     * A trace window that spans the whole run (one an hour, a minute long, the first opening at the
     * drainer's first pass, before {@code main}): the run's trace is whole, its counts are the
     * statistics', and the window's record closes it at the end.
     */
    @Test
    void aTraceWindowWritesTheEventsBesideTheStatistics(@TempDir Path tmp) throws Exception {
        Path out = tmp.resolve("out");
        String yaml = YAML.replace("statisticsIntervalMs: 100\n", "statisticsIntervalMs: 100\ntraceWindows: {every: 1h, length: 60s}\n");
        ForkedJvm.app(CountingApp.class, tmp).agent(ForkedJvm.config(tmp, yaml), out)
                .args(CountingIT.THREADS, CountingIT.CALLS).runOk();
        Recording trace = Recording.readOnly(out);
        trace.requireCleanEnd();
        List<TraceWindow> windows = new ArrayList<>();
        try (ProcessQueue queue = ProcessQueue.open(trace.dir())) {
            queue.read(new RecordVisitor() {
                @Override
                public void traceWindow(TraceWindow window) {
                    windows.add(window);
                }
            });
        }
        assertEquals(1, windows.size(), windows::toString);
        StatisticsModeRun stats = RunStatistics.of(RunDirs.expand(List.of(out))).statisticsMode();
        assertEquals(1, stats.traceWindows());
        for (StatisticsModeRun.RegionResult r : stats.regions(stats.nominal())) {
            assertEquals(trace.count(r.name(), EventKind.ENTER), r.all().count(), r.name());
            assertEquals(trace.count(r.name(), EventKind.HANDOFF_PUT) + trace.count(r.name(), EventKind.HANDOFF_TAKE)
                    + trace.count(r.name(), EventKind.PROGRESS), r.points(), r.name() + ": point events");
            if (REGIONS.contains(r.name())) {
                assertEquals((long) CountingIT.THREADS * CountingIT.CALLS, r.all().count(), r.name());
            }
        }
    }

    private static void bothAgree(Path tmp, ForkedJvm jvm) throws Exception {
        Path out = tmp.resolve("out");
        jvm.option("-javaagent:" + ForkedJvm.agentJar() + "=config=" + ForkedJvm.config(tmp, YAML) + ",out=" + out
                        + "," + TestSettings.ALSO_TRACE_AGENT_ARGUMENT)
                .args(CountingIT.THREADS, CountingIT.CALLS).runOk();
        Recording trace = Recording.readOnly(out);
        trace.requireCleanEnd();
        assertTrue(trace.header().statisticsMode() && trace.header().traced(), trace.header()::toString);
        Map<String, List<Long>> exact = durations(trace);
        StatisticsModeRun stats = RunStatistics.of(RunDirs.expand(List.of(out))).statisticsMode();
        // One tick is one tick: the bounds are on the process's own clock, as the histogram holds them.
        Map<String, StatisticsModeRun.RegionResult> byName = stats.regions(Scale.point(new BigFraction[] {BigFraction.ONE}))
                .stream().collect(Collectors.toMap(StatisticsModeRun.RegionResult::name, r -> r));
        for (String region : REGIONS) {
            List<Long> ticks = exact.get(region);
            BoundedFigures f = byName.get(region).all();
            assertEquals(trace.count(region, EventKind.ENTER), f.count(), region + ": the trace's count");
            assertEquals(ticks.size(), f.count(), region);
            long sum = ticks.stream().mapToLong(Long::longValue).sum();
            assertContains(f.total(), sum, region + " total");
            assertContains(f.min(), ticks.get(0), region + " min");
            assertContains(f.max(), ticks.get(ticks.size() - 1), region + " max");
            for (BoundedFigures.Quantile q : f.quantiles()) {
                long k = Math.max(1, (long) Math.ceil(q.q() * ticks.size()));
                long truth = ticks.get((int) k - 1);
                assertContains(q.value(), truth, region + " p" + q.q());
                // Within the histogram's relative error, and the readings' tick either side.
                double width = q.value().hi() - q.value().lo();
                assertTrue(width <= BoundedFigures.HISTOGRAM_RELATIVE_ERROR * q.value().hi() + 3,
                        region + " p" + q.q() + ": " + q.value() + " around " + truth);
            }
        }
    }

    private static void assertContains(Bound b, double truth, String what) {
        assertTrue(b.contains(truth), what + ": " + b + " does not contain " + truth);
    }

    /** Each region's instances' exact durations in ticks, from the trace, sorted. */
    private static Map<String, List<Long>> durations(Recording trace) {
        Map<String, List<Long>> out = new HashMap<>();
        for (List<Event> events : trace.byThread().values()) {
            Map<String, Long> open = new HashMap<>();
            for (Event e : events) {
                if (e.region() == null || !REGIONS.contains(e.region())) {
                    continue;
                }
                if (e.kind() == EventKind.ENTER) {
                    open.put(e.region(), e.tick());
                } else if (e.kind() == EventKind.EXIT) {
                    out.computeIfAbsent(e.region(), k -> new ArrayList<>()).add(e.tick() - open.remove(e.region()));
                }
            }
        }
        out.values().forEach(l -> l.sort(null));
        return out;
    }
}
