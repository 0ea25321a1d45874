package dev.dprof.cli;

import static dev.dprof.cli.InProcess.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.dprof.cli.InProcess.Result;
import dev.dprof.consolidator.synthetic.Consolidated;
import dev.dprof.synthetic.SyntheticRun;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each analysis has one JSON form: on one profile (a synthetic run of simulated machines with
 * messages, barriers and a straggler), what {@code dprof analyze … --json} prints is the object the
 * report's data holds for that result, field for field, once the few fields the report adds of its
 * own (docs/REPORT.md, "The report's data") are set aside.
 */
class OneJsonFormTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void theCommandLineAndTheReportCarryTheSameObjectForEachAnalysis(@TempDir Path dir) throws Exception {
        SyntheticRun.Result synthetic = SyntheticRun.generate(SyntheticRun.Spec.of(3, 2, 6, 4_000, 11)
                .straggler(1, 2.0), dir);
        Path profile = Consolidated.of(synthetic, dir.resolve("profile"), "bounded:2.2").out();
        String p = profile.toString();
        Path reportJson = dir.resolve("report.json");
        Result report = run("report", p, "--body", SyntheticRun.BODY, "--barrier", SyntheticRun.BARRIER,
                "--html", dir.resolve("report.html").toString(), "--json", reportJson.toString());
        assertEquals(0, report.exit(), report::toString);
        JsonNode data = JSON.readTree(reportJson.toFile());

        // the report's section, the command whose --json is that section, the fields the report adds
        record Section(String name, List<String> command, List<String> added) {
        }
        List<Section> sections = List.of(
                new Section("statistics", List.of("stats"), List.of()),
                new Section("straggler", List.of("straggler", "--body", SyntheticRun.BODY, "--barrier",
                        SyntheticRun.BARRIER), List.of()),
                // the report ranks every region; the command shows the first --top
                new Section("whatif", List.of("whatif", "--top", "1000000"), List.of("curves")),
                new Section("criticalPath", List.of("critical-path"), List.of("trace")),
                new Section("sync", List.of("sync-quality"), List.of("straggler")));
        for (Section s : sections) {
            String[] command = concat(List.of("analyze", p), s.command(), List.of("--json"));
            Result cli = run(command);
            assertEquals(0, cli.exit(), () -> String.join(" ", command) + "\n" + cli);
            ObjectNode section = (ObjectNode) data.get(s.name()).deepCopy();
            for (String added : s.added()) {
                assertTrue(section.has(added), () -> s.name() + "." + added + " is the report's own");
                section.remove(added);
            }
            JsonNode printed = JSON.readTree(cli.out());
            assertEquals(printed, section, () -> "report." + s.name() + " is not what " + String.join(" ", command)
                    + " prints");
        }

        // the substance is there: a result with figures, not two empty objects alike
        assertTrue(data.get("statistics").get("regions").size() >= 3, data.get("statistics")::toPrettyString);
        assertEquals(3, data.get("straggler").get("processes").size(), data.get("straggler")::toPrettyString);
        assertFalse(data.get("whatif").get("predictions").isEmpty(), data.get("whatif")::toPrettyString);
        assertEquals(4, data.get("sync").get("methods").size(), data.get("sync")::toPrettyString);
        // the report's straggler score under FreeZer is the straggler section itself, in the same form
        assertEquals(data.get("straggler"), data.get("sync").get("straggler").get("freezer"));
        for (Map.Entry<String, JsonNode> byMethod : data.get("sync").get("straggler").properties()) {
            assertEquals(3, byMethod.getValue().get("processes").size(), byMethod.getKey());
        }
    }

    @SafeVarargs
    private static String[] concat(List<String>... parts) {
        return java.util.Arrays.stream(parts).flatMap(List::stream).toArray(String[]::new);
    }
}
