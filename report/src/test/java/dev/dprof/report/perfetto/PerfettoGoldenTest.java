package dev.dprof.report.perfetto;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.protobuf.TextFormat;
import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.synthetic.TinyProfile;
import dev.dprof.format.EventKind;
import dev.dprof.report.perfetto.proto.Trace;
import dev.dprof.testsupport.TestSettings;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The export of a small fixed profile, parsed back as one {@code Trace} with the schema's generated
 * classes, printed in protobuf text format and compared with {@code tiny.textproto}. To accept a
 * deliberate change: {@code mvn test -pl report -Dtest=PerfettoGoldenTest -Ddprof.golden.update=true},
 * then review the diff of the golden file.
 */
class PerfettoGoldenTest {
    private static final Path GOLDEN = Path.of("src/test/resources/dev/dprof/report/perfetto/tiny.textproto");

    /**
     * Two processes of one thread each, 1 GHz reference (a tick is a nanosecond), truth on. It has
     * a nested region closed by an exception, two messages (the second's receive has the earlier
     * midpoint), a barrier, a progress point, an exit of a region that is not open, an outer exit
     * that closes an inner region, and a region left open.
     */
    static Profile tiny(Path dir) throws Exception {
        Files.createDirectories(dir);
        TinyProfile p = new TinyProfile(dir, true);
        int p0 = p.process("1/1", "1/1", 0);
        int p1 = p.process("1/1", "1/1", 0);
        int t0 = p.stream(p0);
        int t1 = p.stream(p1);
        int body = p.region("body");
        int work = p.region("work");
        int barrier = p.region("barrier", "barrier");
        int send = p.region("send", "send");
        int receive = p.region("receive", "receive");
        int progress = p.region("done", "progress");
        p.event(t0, EventKind.THREAD_START, -1, 10, 1000, 1010, 1004, 0, 0)
                .event(t0, EventKind.ENTER, body, 20, 1010, 1020, 1013, 0, 0)
                .event(t1, EventKind.ENTER, body, 500, 1050, 1090, 1061, 0, 0)
                .event(t0, EventKind.ENTER_INSTANCE, work, 40, 1100, 1104, 1102, 42, 0)
                .event(t0, EventKind.SEND, send, 50, 1150, 1160, 1155, 7, 1)
                .event(t0, EventKind.EXIT_THROW, work, 60, 1200, 1204, 1201, 0, 0)
                .event(t1, EventKind.RECEIVE, receive, 600, 1300, 1330, 1310, 7, 1)
                .event(t1, EventKind.EXIT, work, 610, 1340, 1370, 1350, 0, 0)
                .event(t1, EventKind.SEND, send, 620, 1360, 1400, 1365, 7, 2)
                .event(t0, EventKind.RECEIVE, receive, 65, 1370, 1380, 1372, 7, 2)
                .event(t0, EventKind.BARRIER_ENTER, barrier, 70, 1400, 1410, 1405, 3, 2)
                .event(t1, EventKind.BARRIER_ENTER, barrier, 650, 1420, 1450, 1440, 3, 2)
                .event(t0, EventKind.BARRIER_EXIT, barrier, 80, 1500, 1510, 1502, 3, 2)
                .event(t1, EventKind.BARRIER_EXIT, barrier, 700, 1500, 1530, 1511, 3, 2)
                .event(t0, EventKind.ENTER, work, 90, 1550, 1560, 1551, 0, 0)
                .event(t0, EventKind.EXIT, body, 100, 1600, 1610, 1601, 0, 0)
                .event(t1, EventKind.PROGRESS, progress, 750, 1650, 1680, 1660, 5, 0)
                .event(t0, EventKind.THREAD_END, -1, 110, 1700, 1710, 1707, 0, 0);
        return p.write();
    }

    @Test
    void aSmallFixedProfileExportsToTheGoldenTrace(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("trace.perfetto");
        PerfettoExport.Summary summary = PerfettoExport.write(tiny(dir.resolve("profile")), out);

        Trace trace = Trace.parseFrom(Files.readAllBytes(out));
        assertEquals(TraceFile.readAll(out), trace.getPacketList(), "the packets one by one are the whole Trace");
        assertEquals(new PerfettoExport.Summary(trace.getPacketCount(), 6, 2, 18, Files.size(out)), summary);

        String text = TextFormat.printer().printToString(trace);
        if (TestSettings.goldenUpdate()) {
            Files.writeString(GOLDEN, text, StandardCharsets.UTF_8);
        }
        assertEquals(Files.readString(GOLDEN, StandardCharsets.UTF_8), text);
    }
}
