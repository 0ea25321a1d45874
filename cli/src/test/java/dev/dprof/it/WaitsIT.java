package dev.dprof.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.dprof.format.EventKind;
import dev.dprof.format.HandoffRegions;
import dev.dprof.format.RegionInfo;
import dev.dprof.it.ForkedJvm.Event;
import dev.dprof.it.ForkedJvm.Output;
import dev.dprof.it.ForkedJvm.Recording;
import dev.dprof.it.app.WaitApp;
import dev.dprof.testsupport.Jdks;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Long waits with no recorded sender, end to end, with the real agent jar on JDK 17 and on a JDK
 * 21+ (25 here): {@link WaitApp}'s consumer waits on a {@code ReentrantLock} condition that the
 * producer signals, a hand-over no recorded edge follows. Checked: the program's output is the same
 * as without the agent; the consumer's waits are recorded in the region of the method where it
 * waited ({@code wait: park in dev.dprof.it.app.WaitApp.awaitItem:…}), each at least 1 ms long;
 * {@code analyze critical-path --json} has an {@code incomplete} note that names the consumer and
 * that method, with a take region on it in its YAML; {@code analyze whatif} and {@code report}
 * print the note.
 */
class WaitsIT {
    static final int ITEMS = 50;
    static final String YAML = """
            regions:
              - {name: produce, class: %1$s, method: produce}
              - {name: consume, class: %1$s, method: consume}
            """.formatted(WaitApp.class.getName());
    static final String SITE = HandoffRegions.waitSiteName(WaitApp.class.getName() + ".awaitItem:");

    @Test
    void theNoteNamesTheMethodWhereTheConsumerWaitedOnJdk17(@TempDir Path tmp) throws Exception {
        runAndCheck(tmp, Path.of(System.getProperty("java.home")));
    }

    @Test
    void theNoteNamesTheMethodWhereTheConsumerWaitedOnJdk21OrLater(@TempDir Path tmp) throws Exception {
        runAndCheck(tmp, Jdks.modern());
    }

    static void runAndCheck(Path tmp, Path javaHome) throws Exception {
        Output plain = ForkedJvm.app(WaitApp.class, tmp).javaHome(javaHome).args(ITEMS).runOk();
        Path out = tmp.resolve("out");
        Output output = ForkedJvm.app(WaitApp.class, tmp).javaHome(javaHome)
                .agent(ForkedJvm.config(tmp, YAML), out).args(ITEMS).runOk();
        assertEquals(plain.stdout(), output.stdout(), "the program's output with the agent");

        Recording run = Recording.readOnly(out);
        run.requireCleanEnd();
        List<String> sites = run.regions().values().stream().map(RegionInfo::name).filter(n -> n.startsWith(SITE))
                .toList();
        assertEquals(1, sites.size(), () -> "the wait's site: " + run.regions().values());
        assertEquals(HandoffRegions.REGION_KIND, run.region(sites.get(0)).kind());
        long consumer = run.threadNames().entrySet().stream().filter(e -> e.getValue().equals("consumer"))
                .map(Map.Entry::getKey).findFirst().orElseThrow(() -> new AssertionError("no consumer thread"));
        List<Event> waits = run.events(sites.get(0), EventKind.HANDOFF_TAKE);
        assertTrue(!waits.isEmpty() && waits.size() <= ITEMS, () -> "the consumer's waits: " + waits);
        for (Event w : waits) {
            assertEquals(HandoffRegions.WAITED, w.a(), w::toString);
            assertTrue(w.b() >= HandoffRegions.WAIT_THRESHOLD_NANOS, w::toString);
            assertEquals(consumer, w.thread(), w::toString);
        }
        System.err.println("WaitsIT: " + waits.size() + " waits of the consumer at " + sites.get(0));

        Path profile = tmp.resolve("profile");
        ForkedJvm.dprof(tmp, "consolidate", out, "--sync", "none", "--quiet", "--out", profile).runOk();
        Output path = ForkedJvm.dprof(tmp, "analyze", profile, "critical-path", "--json").runOk();
        JsonNode incomplete = new ObjectMapper().readTree(String.join("\n", path.stdout())).get("incomplete");
        assertTrue(incomplete != null && incomplete.isObject(), path::toString);
        JsonNode first = incomplete.get("waits").get(0);
        assertTrue(first.get("thread").asText().startsWith("consumer ("), incomplete::toString);
        JsonNode site = first.get("sites").get(0);
        assertEquals(sites.get(0), site.get("site").asText());
        assertEquals(WaitApp.class.getName(), site.get("className").asText());
        assertEquals("awaitItem", site.get("method").asText());
        String reasons = incomplete.get("reasons").toString();
        assertTrue(reasons.contains("with no recorded sender") && reasons.contains("consumer in WaitApp.awaitItem:"),
                reasons);
        String yaml = incomplete.get("suggestion").asText();
        assertTrue(yaml.contains("    class: " + WaitApp.class.getName() + "\n    method: awaitItem\n"
                + "    kind: handoff\n    side: take\n"), yaml);

        Output whatIf = ForkedJvm.dprof(tmp, "analyze", profile, "whatif", "--region", "produce").runOk();
        assertTrue(whatIf.stdout().stream().anyMatch(l -> l.startsWith("note: ") && l.contains("WaitApp.awaitItem")),
                whatIf::toString);
        Output report = ForkedJvm.dprof(tmp, "report", profile, "--no-baselines").runOk();
        assertTrue(report.stdout().stream().anyMatch(l -> l.startsWith("note: ") && l.contains("WaitApp.awaitItem")),
                report::toString);
    }
}
