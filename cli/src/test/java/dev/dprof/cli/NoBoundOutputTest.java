package dev.dprof.cli;

import static dev.dprof.cli.InProcess.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Unbounded figures through every analysis' text and JSON and the report (issue 19: "no output shows
 * Infinity or NaN as a bound"): a profile with one process whose rate has no bound (its calibration
 * CONTRADICTED) beside a bounded one. Every output must say "no bound" (text) or null (JSON) where a
 * figure has none, the one form docs/BOUNDS.md documents, never Infinity, NaN or an infinite truth.
 */
class NoBoundOutputTest {
    @Test
    void noAnalysisPrintsAnInfiniteOrUndefinedBound(@TempDir Path dir) throws Exception {
        Path profile = dir.resolve("profile");
        write(profile);
        String p = profile.toString();
        List<String[]> commands = List.of(
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
        boolean saidNoBound = false;
        for (String[] command : commands) {
            Result r = run(command);
            String context = String.join(" ", command) + "\n" + r;
            // An analysis that needs every duration bounded refuses in one line saying why: also a stated "no bound".
            boolean refused = r.exit() == 1 && r.err().strip().lines().count() == 1 && r.err().contains("has no rate bound");
            assertTrue(r.exit() == 0 || refused, context);
            assertClean(r.out() + r.err(), context);
            saidNoBound |= r.out().contains(NoBound.TEXT) || r.out().contains("\"hi\" : null");
        }
        assertTrue(saidNoBound, "no output said where a figure has no bound");
        // The report, like the critical path it holds, refuses such a profile in one line (checked above).
        if (Files.exists(dir.resolve("report.json"))) {
            assertClean(Files.readString(dir.resolve("report.json")), "report.json");
        }
    }

    private static void assertClean(String text, String context) {
        for (String bad : List.of("Infinity", "NaN", "∞", "Exception", "\tat ")) {
            assertFalse(text.contains(bad), () -> "'" + bad + "' in " + context);
        }
    }

    /** Two processes of two threads each, the second CONTRADICTED (no rate bound), both with work and wait. */
    private static void write(Path dir) throws Exception {
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
            for (int s = 0; s < 2; s++) {
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
