package dev.dprof.cli;

import static dev.dprof.cli.InProcess.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.dprof.cli.InProcess.Result;
import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.format.EventKind;
import dev.dprof.format.profile.ProfileEvent;
import dev.dprof.format.profile.ProfileEventsWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Unbounded figures through every analysis' text and JSON and the report ("no output shows
 * Infinity or NaN as a bound"): a profile with one process whose rate has no bound (its calibration
 * CONTRADICTED) beside a bounded one. Every output must say "no bound" (text) or null (JSON) where a
 * figure has none, the one form docs/BOUNDS.md documents, never Infinity, NaN or an infinite truth;
 * and no command refuses the run: what does not rest on the unbounded durations is computed from the
 * intact process, and a causal replay, which needs every duration, says so for its own figures only.
 */
class NoBoundOutputTest {
    @Test
    void noAnalysisPrintsAnInfiniteOrUndefinedBound(@TempDir Path dir) throws Exception {
        Path profile = dir.resolve("profile");
        write(profile, true);
        String p = profile.toString();
        boolean saidNoBound = false;
        for (String[] command : commands(p, dir)) {
            Result r = run(command);
            String context = String.join(" ", command) + "\n" + r;
            // The rest of a CONTRADICTED run is still analysed: no command refuses it.
            assertEquals(0, r.exit(), context);
            assertClean(r.out() + r.err(), context);
            saidNoBound |= r.out().contains(NoBound.TEXT) || r.out().contains("\"hi\" : null");
        }
        assertTrue(saidNoBound, "no output said where a figure has no bound");
        assertClean(Files.readString(dir.resolve("report.json")), "report.json");
    }

    @Test
    void aReplayThatNeedsAnUnboundedDurationSaysSoForItsFiguresOnly(@TempDir Path dir) throws Exception {
        Path profile = dir.resolve("profile");
        write(profile, true);
        String p = profile.toString();
        String why = "no bound (process host1-101 has events in the profile and its clock has no rate bound"
                + " (calibration CONTRADICTED); the replay needs every duration)";
        Result whatIf = run("analyze", p, "whatif", "--region", "work", "--speedup", "50%");
        assertEquals(0, whatIf.exit(), whatIf::toString);
        assertTrue(whatIf.out().contains("predicted speedups: " + why), whatIf::toString);
        Result path = run("analyze", p, "critical-path");
        assertEquals(0, path.exit(), path::toString);
        assertTrue(path.out().contains("critical path, span first event → last event: " + why), path::toString);
        JsonNode pathJson = Json.MAPPER.readTree(run("analyze", p, "critical-path", "--json").out());
        assertTrue(pathJson.get("noBound").asText().contains("host1-101"), pathJson::toString);
        assertTrue(pathJson.get("lengthNsHi").isNull(), pathJson::toString);

        // Everything that does not need the replay is computed from the intact process, in the same report.
        assertEquals(0, run("report", p, "--no-baselines", "--json", dir.resolve("report.json").toString()).exit());
        JsonNode report = Json.MAPPER.readTree(dir.resolve("report.json").toFile());
        assertTrue(report.get("whatif").get("noBound").asText().contains("host1-101"), report::toString);
        assertTrue(report.get("criticalPath").get("noBound").asText().contains("host1-101"), report::toString);
        assertTrue(report.get("statistics").get("regions").size() > 0, report::toString);
        Result straggler = run("analyze", p, "straggler", "--body", "work", "--barrier", "wait", "--json");
        assertEquals(0, straggler.exit(), straggler::toString);
        JsonNode bounded = StreamSupport.stream(Json.MAPPER.readTree(straggler.out()).findValue("processes")
                .spliterator(), false).filter(n -> n.toString().contains("host0")).findFirst().orElseThrow();
        assertTrue(bounded.findValue("hi").isNumber(), bounded::toString);
    }

    @Test
    void aContradictedProcessWhoseEventsWereLeftOutIsReplayedWithout(@TempDir Path dir) throws Exception {
        // What consolidate writes: a CONTRADICTED domain's events have no bound and are left out of events.bin.
        Path profile = dir.resolve("profile");
        write(profile, false);
        String p = profile.toString();
        String note = "note: left out of the replay: host1-101: no rate bound (calibration CONTRADICTED)";
        Result whatIf = run("analyze", p, "whatif", "--region", "work", "--speedup", "50%");
        assertEquals(0, whatIf.exit(), whatIf::toString);
        assertTrue(whatIf.out().contains(note), whatIf::toString);
        assertFalse(whatIf.out().contains(NoBound.TEXT), whatIf::toString);
        JsonNode prediction = Json.MAPPER.readTree(run("analyze", p, "whatif", "--region", "work", "--speedup", "50%",
                "--json").out()).get("predictions").get(0);
        assertTrue(prediction.get("lo").isNumber() && prediction.get("hi").asDouble() > 0, prediction::toString);
        Result path = run("analyze", p, "critical-path");
        assertEquals(0, path.exit(), path::toString);
        assertTrue(path.out().contains(note) && path.out().contains("work"), path::toString);
    }

    private static List<String[]> commands(String p, Path dir) {
        return List.of(
                new String[] {"analyze", p, "stats"},
                new String[] {"analyze", p, "stats", "--json"},
                new String[] {"analyze", p, "straggler", "--body", "work", "--barrier", "wait"},
                new String[] {"analyze", p, "straggler", "--body", "work", "--barrier", "wait", "--json"},
                new String[] {"analyze", p, "critical-path"},
                new String[] {"analyze", p, "critical-path", "--json"},
                new String[] {"analyze", p, "whatif"},
                new String[] {"analyze", p, "whatif", "--json"},
                new String[] {"analyze", p, "whatif", "--region", "work", "--sweep"},
                new String[] {"report", p, "--no-baselines", "--json", dir.resolve("report.json").toString(),
                    "--html", dir.resolve("report.html").toString()});
    }

    private static void assertClean(String text, String context) {
        for (String bad : List.of("Infinity", "NaN", "∞", "Exception", "\tat ")) {
            assertFalse(text.contains(bad), () -> "'" + bad + "' in " + context);
        }
    }

    /**
     * Two processes of two threads each, the second CONTRADICTED (no rate bound), both with work and
     * wait; {@code contradictedEvents} false leaves the second one's events out, as consolidate does.
     */
    private static void write(Path dir, boolean contradictedEvents) throws Exception {
        Files.createDirectories(dir);
        List<ProfileInfo.Process> processes = List.of(
                new ProfileInfo.Process(0, "host0", 100, "tsc@boot0", "BOUNDED", 1e9, 10, null, 0, true, "1/1", "1/1",
                        1, 1, Map.of(), null),
                new ProfileInfo.Process(1, "host1", 101, "tsc@boot1", "CONTRADICTED", 1e9, 10, null, 0, true, null,
                        null, Double.NaN, Double.NaN, Map.of(), null));
        List<ProfileInfo.Stream> streams = List.of(new ProfileInfo.Stream(0, 0, 1000, "t0"),
                new ProfileInfo.Stream(1, 1, 1001, "t1"));
        List<ProfileInfo.Region> regions = List.of(new ProfileInfo.Region(0, "work", "plain"),
                new ProfileInfo.Region(1, "wait", "plain"));
        List<ProfileEvent> events = new ArrayList<>();
        for (int round = 0; round < 3; round++) {
            long base = 10_000L * round;
            for (int s = 0; s < (contradictedEvents ? 2 : 1); s++) {
                events.add(event(s, EventKind.ENTER, 0, base + 100 + s * 7));
                events.add(event(s, EventKind.EXIT, 0, base + 4000 + s * 900));
                events.add(event(s, EventKind.ENTER, 1, base + 5000 + s * 900));
                events.add(event(s, EventKind.EXIT, 1, base + 9000));
            }
        }
        events.sort((a, b) -> Long.compare(a.tick, b.tick));
        try (ProfileEventsWriter w = new ProfileEventsWriter(dir.resolve(Profile.EVENTS), false)) {
            for (ProfileEvent e : events) {
                w.write(e);
            }
        }
        Profile.writeInfo(dir, new ProfileInfo(ProfileInfo.FORMAT_VERSION, "freezer", "bounded:1 (test)", "ref", 1e9,
                null, false, processes, streams, regions, new ProfileInfo.Messages(0, 0, 0, 0, 0, 0, 0),
                events.size(), 0, 0, List.of()));
    }

    private static ProfileEvent event(int stream, EventKind kind, int region, long tick) {
        ProfileEvent e = new ProfileEvent();
        e.stream = stream;
        e.kind = kind;
        e.region = region;
        e.tick = tick;
        e.lo = tick - 5;
        e.hi = tick + 5;
        e.truth = ProfileEvent.NO_TRUTH;
        return e;
    }


}
