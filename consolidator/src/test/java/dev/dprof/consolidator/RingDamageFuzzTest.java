package dev.dprof.consolidator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.dprof.calibrator.estimate.DriftModels;
import dev.dprof.consolidator.analysis.causal.CriticalPath;
import dev.dprof.consolidator.analysis.causal.CriticalPathJson;
import dev.dprof.consolidator.analysis.causal.WhatIf;
import dev.dprof.consolidator.analysis.causal.WhatIfJson;
import dev.dprof.consolidator.analysis.messages.HandoffEdges;
import dev.dprof.consolidator.analysis.stats.ProfileStatistics;
import dev.dprof.consolidator.analysis.stats.StatisticsJson;
import dev.dprof.consolidator.analysis.straggler.StragglerJson;
import dev.dprof.consolidator.analysis.straggler.StragglerScore;
import dev.dprof.consolidator.consolidate.ConsolidationException;
import dev.dprof.consolidator.consolidate.Consolidator;
import dev.dprof.consolidator.json.ResultJson;
import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.profile.ProfileException;
import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.consolidator.read.RingDamageFuzz;
import dev.dprof.consolidator.stats.RunStatistics;
import dev.dprof.consolidator.stats.RunStatisticsJson;
import dev.dprof.consolidator.sync.Baselines;
import dev.dprof.consolidator.sync.SyncQualityJson;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ring files damaged in every way a flip can ({@link RingDamageFuzz}, seeded), read by every reader
 * and analysis: {@code stats} on the queues, consolidation, and on the profile the statistics,
 * straggler scores, what-if (one region, the ranking, curves), the critical path with its zeroing,
 * the handoff edges and the synchronisation baselines, each also as JSON; half the runs are
 * consolidated with FreeZer (their one clock domain the reference), the others with {@code --sync none}. Each either succeeds with
 * counts that add up (events kept + counted lost = recorded, exactly, in {@code stats} and in the
 * profile alike) and JSON without NaN or Infinity, or fails with one clean line
 * ({@link ProfileException}, {@link ConsolidationException}); nothing else is ever thrown.
 */
class RingDamageFuzzTest {
    private static final int RUNS = 30;
    /** Per analysis, the runs it succeeded on: each must succeed on some, or the test would prove nothing. */
    private final java.util.Map<String, Integer> succeeded = new java.util.TreeMap<>();
    private int refusals;

    @Test
    void everyReaderAndAnalysisSurvivesRingDamageAndCountsWhatItLeftOut(@TempDir Path tmp) throws Exception {
        for (long seed = 0; seed < RUNS; seed++) {
            RingDamageFuzz.Run run = RingDamageFuzz.make(tmp.resolve("run-" + seed), seed);
            String what = "seed " + seed + ": " + run.damage();
            try {
                check(run, tmp.resolve("out-" + seed), seed % 2 == 1, what);
            } catch (AssertionError e) {
                throw e;
            } catch (Throwable e) {
                throw new AssertionError(what + ": " + e, e);
            }
        }
        // damage to some events never makes a whole run unreadable
        assertEquals(0, refusals);
        assertEquals(9, succeeded.size(), succeeded::toString);
    }

    private void check(RingDamageFuzz.Run run, Path out, boolean freezer, String what) throws Exception {
        RunStatistics stats = RunStatistics.of(run.queues());
        assertTrue(stats.lostExact(), what);
        assertEquals(run.recorded(), stats.events() + stats.lostEvents(), () -> what + "\n" + stats.problems());
        json(RunStatisticsJson.of(stats), what);

        Path dir = out.resolve("profile");
        ProfileInfo info;
        try {
            // odd seeds with FreeZer (their one domain the reference), so that the baselines have a calibration to fit
            info = Consolidator.run(freezer
                    ? new Consolidator.Options(List.of(run.dir()), List.of(run.calibration()), dir,
                            Consolidator.Sync.FREEZER, DriftModels.parse("bounded:1"), Optional.empty())
                    : new Consolidator.Options(List.of(run.dir()), List.of(), dir, Consolidator.Sync.NONE, null,
                            Optional.empty()), n -> { });
        } catch (ConsolidationException e) {
            clean(e, what);
            refusals++;
            return;
        }
        long lost = info.processes().stream().mapToLong(ProfileInfo.Process::lostEvents).sum();
        String counts = "stats: " + stats.events() + " read, " + stats.lostEvents() + " lost; profile: " + info.events()
                + " events, " + info.unboundedEvents() + " without a bound, lost "
                + info.processes().stream().map(ProfileInfo.Process::lostEvents).toList();
        // an event without a bound (a tick a flip took beyond the conversion's range) is named and left out
        assertEquals(stats.events(), info.events() + info.unboundedEvents(), () -> what + "\n" + counts + "\n"
                + info.problems());
        assertEquals(run.recorded(), info.events() + info.unboundedEvents() + lost, () -> what + "\n" + counts);

        Profile profile = Profile.open(dir);
        String work = RingDamageFuzz.WORK_REGION;
        String sync = RingDamageFuzz.SYNC_REGION;
        analysis(what, "statistics", () -> json(StatisticsJson.of(ProfileStatistics.compute(profile)), what));
        analysis(what, "straggler", () -> json(StragglerJson.of(StragglerScore.compute(profile, work, sync)), what));
        analysis(what, "what-if", () -> json(WhatIfJson.of(WhatIf.predict(profile, work, List.of(0.5, 1.0), null,
                null)), what));
        analysis(what, "what-if ranking", () -> json(WhatIfJson.of(WhatIf.rank(profile, 0.5, null, null)), what));
        analysis(what, "what-if curves", () -> json(WhatIfJson.of(WhatIf.curves(profile, List.of(work, "msg.recv"),
                List.of(0.25, 1.0), work, work)), what));
        analysis(what, "critical path", () -> json(CriticalPathJson.of(CriticalPath.compute(profile)), what));
        analysis(what, "critical path over a span", () -> json(CriticalPathJson.of(CriticalPath.compute(profile, work,
                sync)), what));
        analysis(what, "handoff edges", () -> HandoffEdges.of(profile));
        analysis(what, "baselines", () -> {
            Baselines.Derived derived = Baselines.derive(profile, out.resolve("baselines"));
            json(SyncQualityJson.of(derived, Baselines.quality(derived)), what);
        });
    }

    /** An analysis that may refuse the profile in one clean line, and never fails otherwise. */
    private void analysis(String what, String name, Body body) throws Exception {
        try {
            body.run();
            succeeded.merge(name, 1, Integer::sum);
        } catch (ProfileException e) {
            clean(e, what);
        }
    }

    @FunctionalInterface
    private interface Body {
        void run() throws Exception;
    }

    private static void clean(Exception e, String what) {
        String message = e.getMessage();
        assertTrue(message != null && !message.isBlank() && message.lines().count() == 1, () -> what + ": " + message);
        assertFalse(message.contains("Exception") || message.contains("\tat "), () -> what + ": " + message);
    }

    private static void json(JsonNode node, String what) throws Exception {
        String text = ResultJson.MAPPER.writeValueAsString(node);
        assertFalse(text.contains("NaN") || text.contains("Infinity"), () -> what + ": " + text);
    }
}
