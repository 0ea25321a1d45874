package dev.dprof.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.dprof.cli.Main;
import dev.dprof.clock.SimulatedClock;
import dev.dprof.format.EventBatchReader;
import dev.dprof.format.EventKind;
import dev.dprof.it.ForkedJvm.Event;
import dev.dprof.it.ForkedJvm.Output;
import dev.dprof.it.ForkedJvm.Recording;
import dev.dprof.it.app.CountingApp;
import dev.dprof.settings.DprofSettings;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One run of {@link CountingApp} under a simulated clock, checked twice: every event carries its
 * real tick (the truth) and its stored tick is exactly {@code SimulatedClock.apply(truth)}; and
 * {@code dprof stats --json} on that run reports the documented fields with the exact counts.
 */
class SimulatedClockIT {
    static final String SPEC = "rate=1.3,offset=1000000";
    static final int THREADS = 3;
    static final int CALLS = 2_000;

    @Test
    void simulatedTicksAndStatsJson(@TempDir Path tmp) throws Exception {
        Path out = tmp.resolve("out");
        Output output = ForkedJvm.app(CountingApp.class, tmp).agent(ForkedJvm.config(tmp, CountingIT.YAML), out)
                .property(DprofSettings.SIM_CLOCK_PROPERTY, SPEC).args(THREADS, CALLS).runOk();
        assertEquals(List.of("sum=" + CountingApp.expectedSum(THREADS, CALLS)), output.stdout(), output::toString);

        Recording run = Recording.readOnly(out);
        run.requireCleanEnd();
        SimulatedClock clock = SimulatedClock.parse(SPEC);
        assertEquals(clock, run.header().simulatedClock().orElseThrow(), "the header's simulated clock");
        assertTrue(run.header().domainId().contains("sim("), run.header().domainId());
        assertTrue(run.events().size() > 4 * THREADS * CALLS, "events: " + run.events().size());
        for (Event e : run.events()) {
            assertTrue(e.truth() != EventBatchReader.NO_TRUTH, () -> "no truth: " + e);
            assertEquals(clock.apply(e.truth()), e.tick(), () -> "tick of " + e);
        }
        for (Map.Entry<Long, List<Event>> thread : run.byThread().entrySet()) {
            CountingIT.assertNonDecreasingTicks(run.threadNames().get(thread.getKey()), thread.getValue());
        }

        Path json = tmp.resolve("stats.json");
        assertEquals(0, Main.run("stats", out.toString(), "--json", json.toString()));
        JsonNode root = new ObjectMapper().readTree(json.toFile());
        assertEquals(0, root.get("lostEvents").asLong());
        Map<String, JsonNode> regions = new HashMap<>();
        root.get("regions").forEach(r -> regions.put(r.get("name").asText(), r));
        // the YAML's regions; the JDK's TCP regions may be listed too, with no calls
        regions.keySet().retainAll(Set.of("count.compute", "count.static"));
        assertEquals(Set.of("count.compute", "count.static"), regions.keySet());
        for (JsonNode r : regions.values()) {
            assertEquals(THREADS * CALLS, r.get("count").asLong(), r::toString);
            for (String field : List.of("totalNs", "meanNs", "minNs", "maxNs")) {
                assertTrue(r.get(field).isNumber() && r.get(field).asDouble() >= 0, () -> field + " in " + r);
            }
            double min = r.get("minNs").asDouble();
            double mean = r.get("meanNs").asDouble();
            double max = r.get("maxNs").asDouble();
            assertTrue(min <= mean && mean <= max, r::toString);
            assertEquals(r.get("totalNs").asDouble() / THREADS / CALLS, mean, mean * 1e-9, r::toString);
        }
        assertEquals(1, root.get("processes").asLong());
        assertEquals(0, root.get("openRegions").asLong());
        assertEquals(run.events().size(), root.get("events").asLong());
        assertTrue(run.events().stream().filter(e -> e.kind() == EventKind.ENTER).count() == 2L * THREADS * CALLS);
    }
}
