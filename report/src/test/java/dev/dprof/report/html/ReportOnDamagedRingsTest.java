package dev.dprof.report.html;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.dprof.consolidator.consolidate.ConsolidationException;
import dev.dprof.consolidator.consolidate.Consolidator;
import dev.dprof.consolidator.json.ResultJson;
import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.profile.ProfileException;
import dev.dprof.consolidator.read.RingDamageFuzz;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The report's data of runs whose ring files were damaged in every way a flip can
 * ({@link RingDamageFuzz}, the consolidator's fuzz runs): built whole, as JSON without NaN or
 * Infinity, or refused in one clean line; nothing else is ever thrown.
 */
class ReportOnDamagedRingsTest {
    private static final int RUNS = 12;

    @Test
    void theReportsDataOfDamagedRingsIsBuiltOrRefusedInOneLine(@TempDir Path tmp) throws Exception {
        for (long seed = 0; seed < RUNS; seed++) {
            RingDamageFuzz.Run run = RingDamageFuzz.make(tmp.resolve("run-" + seed), seed);
            String what = "seed " + seed + ": " + run.damage();
            Path dir = tmp.resolve("profile-" + seed);
            try {
                Consolidator.run(new Consolidator.Options(List.of(run.dir()), List.of(), dir, Consolidator.Sync.NONE,
                        null, Optional.empty()), n -> { });
                ObjectNode data = ReportData.build(Profile.open(dir), new ReportData.Options(RingDamageFuzz.WORK_REGION,
                        RingDamageFuzz.SYNC_REGION, null, null, ReportData.Options.CURVES, 2000, 2000, true),
                        tmp.resolve("scratch-" + seed));
                String text = ResultJson.MAPPER.writeValueAsString(data);
                assertFalse(text.contains("NaN") || text.contains("Infinity"), () -> what + ": " + text);
            } catch (ConsolidationException | ProfileException e) {
                assertTrue(e.getMessage() != null && e.getMessage().lines().count() == 1, () -> what + ": " + e);
            } catch (RuntimeException e) {
                throw new AssertionError(what + ": " + e, e);
            }
        }
    }
}
