package dev.dprof.report.html;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.dprof.consolidator.json.ResultJson;
import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.synthetic.TinyProfile;
import dev.dprof.format.EventKind;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * The report's data for a small fixed profile, against a golden file: two workers send their
 * result to a third (work2 is the longer, so it is on the critical path), every event known to the
 * tick. A change in any section shows up here as a diff; when the change is meant, the actual
 * output, written to {@code report-data.actual.json} in the test's temporary directory (kept when
 * the test fails), becomes the new golden file.
 */
class ReportDataGoldenTest {
    private static void point(TinyProfile p, int stream, EventKind kind, int region, long t, long key) {
        p.event(stream, kind, region, t, t, t + 2, t + 1, 9, key);
    }

    @Test
    void theDataOfASmallFixedProfileIsTheGoldenOne(@TempDir(cleanup = CleanupMode.ON_SUCCESS) Path dir) throws Exception {
        TinyProfile p = new TinyProfile(dir, true);
        int t0 = p.stream(p.process("1/1", "1/1", 0));
        int t1 = p.stream(p.process("1/1", "1/1", 0));
        int t2 = p.stream(p.process("1/1", "1/1", 0));
        int wait = p.region("wait");
        int work1 = p.region("work1");
        int work2 = p.region("work2");
        int send = p.region("send", "send");
        int receive = p.region("receive", "receive");
        point(p, t0, EventKind.ENTER, wait, 0, 0);
        point(p, t1, EventKind.ENTER, work1, 5, 0);
        point(p, t2, EventKind.ENTER, work2, 5, 0);
        point(p, t1, EventKind.EXIT, work1, 100, 0);
        point(p, t1, EventKind.SEND, send, 100, 3);
        point(p, t0, EventKind.RECEIVE, receive, 105, 3);
        point(p, t2, EventKind.EXIT, work2, 200, 0);
        point(p, t2, EventKind.SEND, send, 200, 4);
        point(p, t0, EventKind.RECEIVE, receive, 205, 4);
        point(p, t0, EventKind.EXIT, wait, 205, 0);
        Profile profile = p.write();

        ObjectNode data = ReportData.build(profile, new ReportData.Options(null, null, null, null, 2, 10, 10, false),
                dir.resolve("scratch"));
        String actual = ResultJson.MAPPER.copy().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(data)
                .replace("\r\n", "\n") + "\n";
        Path written = Files.writeString(dir.resolve("report-data.actual.json"), actual, StandardCharsets.UTF_8);
        String golden = new String(ReportDataGoldenTest.class.getResourceAsStream("/golden/report-data.json")
                .readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(golden, actual, "differs from src/test/resources/golden/report-data.json; see " + written);
    }
}
