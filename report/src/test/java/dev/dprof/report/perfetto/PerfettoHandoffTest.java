package dev.dprof.report.perfetto;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.consolidator.synthetic.TinyProfile;
import dev.dprof.format.EventKind;
import dev.dprof.format.HandoffRegions;
import dev.dprof.report.perfetto.proto.TracePacket;
import dev.dprof.report.perfetto.proto.TrackEvent;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Handoffs between threads of one process in the Perfetto trace: a flow from a future's put to
 * each of its two takes, one from a {@code Thread.start} to the started thread's first event (a
 * region's enter, so the flow ends on an instant of its own), none for a take without a put; a
 * take whose midpoint lies before its put's is drawn at the put's time. Virtual-thread events are
 * written as instants.
 */
class PerfettoHandoffTest {
    @Test
    void eachHandoffEdgeIsAFlowFromItsPutToItsTake(@TempDir Path dir) throws Exception {
        TinyProfile p = new TinyProfile(dir, true);
        int process = p.process("1/1", "1/1", 0);
        int t0 = p.stream(process);
        int t1 = p.stream(process);
        int t2 = p.stream(process);
        int work = p.region("work");
        int future = p.region(HandoffRegions.siteName(HandoffRegions.Kind.FUTURE, "CompletableFuture", "A.b:1"),
                HandoffRegions.REGION_KIND);
        int threads = p.region(HandoffRegions.threadsName(), HandoffRegions.REGION_KIND);
        long f = HandoffRegions.FIRST_OBJECT;
        p.event(t0, EventKind.HANDOFF_PUT, threads, 0, 0, 10, 5, HandoffRegions.THREAD_START, 1002)
                .event(t1, EventKind.ENTER, work, 0, 20, 30, 25, 0, 0)
                .event(t0, EventKind.HANDOFF_PUT, future, 1, 100, 120, 110, f, 1)
                .event(t1, EventKind.HANDOFF_TAKE, future, 1, 90, 140, 130, f, 1)
                .event(t2, EventKind.ENTER, work, 0, 40, 50, 45, 0, 0)
                .event(t2, EventKind.HANDOFF_TAKE, future, 1, 95, 105, 104, f, 1) // midpoint 100 < put's 110
                .event(t2, EventKind.HANDOFF_TAKE, future, 2, 150, 160, 155, f, 9) // no put
                .event(t2, EventKind.VT_MOUNT, -1, 3, 170, 171, 170, 77, 0)
                .event(t2, EventKind.VT_UNMOUNT, -1, 4, 180, 181, 180, 77, 0)
                .event(t1, EventKind.EXIT, work, 2, 200, 210, 205, 0, 0)
                .event(t2, EventKind.EXIT, work, 5, 200, 210, 205, 0, 0);
        Path out = dir.resolve("trace.perfetto");
        PerfettoExport.Summary summary = PerfettoExport.write(p.write(), out);
        assertEquals(3, summary.flows());

        Map<Long, Long> startedAt = new HashMap<>();
        Map<Long, Long> endedAt = new HashMap<>();
        List<String> instants = new ArrayList<>();
        for (TracePacket packet : TraceFile.readAll(out)) {
            if (!packet.hasTrackEvent()) {
                continue;
            }
            TrackEvent ev = packet.getTrackEvent();
            if (ev.getType() == TrackEvent.Type.TYPE_INSTANT) {
                instants.add(ev.getTrackUuid() + "@" + packet.getTimestamp());
            }
            ev.getFlowIdsList().forEach(id -> startedAt.put(id, packet.getTimestamp()));
            ev.getTerminatingFlowIdsList().forEach(id -> endedAt.put(id, packet.getTimestamp()));
        }
        assertEquals(3, startedAt.size(), startedAt.toString());
        assertEquals(startedAt.keySet(), endedAt.keySet());
        for (long id : startedAt.keySet()) {
            assertTrue(startedAt.get(id) <= endedAt.get(id), "flow " + id + " goes back in time");
        }
        // the put is drawn at 110, its interval's midpoint (time 0 is the first lower bound, 0); t2's
        // take, at midpoint 100, is raised to it
        assertTrue(endedAt.containsValue(110L), endedAt.toString());
        assertTrue(instants.size() >= 7, instants.toString());
    }
}
