package dev.dprof.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.dprof.format.EventKind;
import dev.dprof.it.ForkedJvm.Output;
import dev.dprof.it.ForkedJvm.Recording;
import dev.dprof.it.app.quorum.Leader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Nothing matches silently wrong: with the real agent jar, a YAML whose regions name a class that
 * does not exist ({@code …quorum.Leeder}), a method that does not exist ({@code processAckk}) and a
 * wrong descriptor runs the application unchanged, the one right region is recorded, and the end of
 * the run, {@code dprof stats} (text and JSON) and {@code dprof consolidate} (text and
 * {@code profile.json}) name each wrong region with its reason and the nearest existing name.
 */
class TypoIT {
    static final int ACKS = 1_000;
    static final String LEADER = Leader.class.getName();
    static final String YAML = """
            regions:
              - {name: ack, class: %1$s, method: processAck}
              - {name: ack.class, class: %2$s, method: processAck}
              - {name: ack.method, class: %1$s, method: processAckk}
              - {name: ack.descriptor, class: %1$s, method: processAck, descriptor: '(I)V'}
            """.formatted(LEADER, LEADER.replace("Leader", "Leeder"));

    @Test
    void everyRegionThatMatchedNothingIsNamedWithItsReasonAndTheNearestName(@TempDir Path tmp) throws Exception {
        Path out = tmp.resolve("out");
        Path config = ForkedJvm.config(tmp, YAML);
        Output run = ForkedJvm.app(Leader.class, tmp).agent(config, out).args(ACKS).runOk();
        assertEquals(List.of("acked=" + ACKS + " zxid=" + ACKS), run.stdout(), run::toString);

        List<String> unmatched = List.of(
                "region 'ack.class' (" + config + ":3) " + LEADER.replace("Leader", "Leeder")
                        + "#processAck: no class by that name was loaded (nearest: " + LEADER + ")",
                "region 'ack.method' (" + config + ":4) " + LEADER
                        + "#processAckk: the class has no such method (nearest: processAck)",
                "region 'ack.descriptor' (" + config + ":5) " + LEADER
                        + "#processAck(I)V: the descriptor did not match (nearest: processAck(J)V)");
        List<String> lines = run.dprofLines();
        assertTrue(lines.get(0).startsWith("dprof: recording 4 configured regions to " + out), run::toString);
        List<String> end = new ArrayList<>(List.of("dprof: woven 1 method in 1 class for 1 of 4 configured regions"));
        unmatched.forEach(u -> end.add("dprof: " + u));
        assertEquals(end, lines.subList(1, lines.size()), run::toString);

        Recording recording = Recording.readOnly(out);
        recording.requireCleanEnd();
        assertEquals(ACKS, recording.count("ack", EventKind.ENTER), "the right region is recorded");

        List<String> inRun = unmatched.stream().map(u -> "  " + u + " [1 of 1 process]").toList();
        Path statsJson = tmp.resolve("stats.json");
        Output stats = ForkedJvm.dprof(tmp, "stats", out, "--json", statsJson).runOk();
        assertEquals(inRun, after(stats.stdout(), "YAML regions that matched no method:"), stats::toString);
        checkJson(new ObjectMapper().readTree(statsJson.toFile()).get("weaving"));

        Path profile = tmp.resolve("profile");
        Output consolidate = ForkedJvm.dprof(tmp, "consolidate", out, "--sync", "none", "--quiet", "--out", profile)
                .runOk();
        assertEquals(inRun, after(consolidate.stdout(), "YAML regions that matched no method:"), consolidate::toString);
        checkJson(new ObjectMapper().readTree(profile.resolve("profile.json").toFile()).get("weaving"));
    }

    /** The lines after {@code heading}. */
    private static List<String> after(List<String> lines, String heading) {
        int at = lines.indexOf(heading);
        assertTrue(at >= 0, () -> "no '" + heading + "' in " + lines);
        return lines.subList(at + 1, lines.size());
    }

    private static void checkJson(JsonNode weaving) {
        JsonNode unmatched = weaving.get("unmatched");
        assertEquals(3, unmatched.size(), weaving::toString);
        assertEquals(List.of("NO_CLASS", "NO_METHOD", "DESCRIPTOR"),
                List.of(unmatched.get(0).get("reason").asText(), unmatched.get(1).get("reason").asText(),
                        unmatched.get(2).get("reason").asText()));
        assertEquals(List.of(LEADER, "processAck", "processAck(J)V"),
                List.of(unmatched.get(0).get("nearest").asText(), unmatched.get(1).get("nearest").asText(),
                        unmatched.get(2).get("nearest").asText()));
        assertEquals(0, weaving.get("unknown").size(), weaving::toString);
    }
}
