package dev.dprof.it.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.it.app.ThreadSchedStats.Delta;
import dev.dprof.it.app.ThreadSchedStats.Sample;
import dev.dprof.it.app.ThreadSchedStats.Sums;
import dev.dprof.testsupport.Prerequisite;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class ThreadSchedStatsTest {
    @Test
    void aLineReadsBackAsItsSampleWithSpacesInTheName() {
        Sample s = new Sample(41, 4242, "C2 CompilerThre", 1_000, 200, 7, 5, 2);
        String line = ThreadSchedStats.line("end", s);
        assertEquals(List.of(s), ThreadSchedStats.parse("end", List.of("zk-load: connected", line)));
        assertEquals(List.of(), ThreadSchedStats.parse("start", List.of(line)));
        assertThrows(IllegalArgumentException.class, () -> ThreadSchedStats.parse("end", List.of("zk-threads: end 1 2 3")));
    }

    @Test
    void kernelNamesGroupByZooKeepersStageOrByNameWithoutItsNumber() {
        assertEquals(ThreadSchedStats.group("SyncThread:1"), ThreadSchedStats.group("SyncThread:3"));
        assertTrue(ThreadSchedStats.requestPath(ThreadSchedStats.group("CommitProcesso")));
        assertTrue(!ThreadSchedStats.group("CommitProcWorkT").equals(ThreadSchedStats.group("CommitProcesso")));
        assertEquals("GC Thread", ThreadSchedStats.group("GC Thread#0"));
        assertEquals("SendWorker", ThreadSchedStats.group("SendWorker:2"));
        assertTrue(!ThreadSchedStats.requestPath("SendWorker"));
        assertEquals("C2 CompilerThre", ThreadSchedStats.group("C2 CompilerThre"));
        assertTrue(!ThreadSchedStats.requestPath("GC Thread"));
    }

    @Test
    void aDeltaCountsNewThreadsWholeAndGoneThreadsApart() {
        List<Sample> start = List.of(new Sample(1, 10, "SyncThread:1", 100, 10, 2, 2, 0),
                new Sample(1, 11, "NIOWorkerThrea", 50, 5, 1, 1, 0));
        List<Sample> end = List.of(new Sample(1, 10, "SyncThread:1", 400, 70, 5, 4, 1),
                new Sample(1, 12, "NIOWorkerThrea", 30, 9, 3, 3, 0));
        Delta d = ThreadSchedStats.delta(start, end);
        assertEquals(new Sums(1, 300, 60, 3, 2, 1), d.groups().get(ThreadSchedStats.group("SyncThread:1")));
        assertEquals(new Sums(1, 30, 9, 3, 3, 0), d.groups().get(ThreadSchedStats.group("NIOWorkerThrea")));
        assertEquals(1, d.threadsGone());
        assertEquals(new Sums(2, 330, 69, 6, 5, 1), d.total());
        assertEquals(20.0, d.groups().get(ThreadSchedStats.group("SyncThread:1")).waitPerSliceNs());
        assertTrue(Double.isNaN(Sums.NONE.waitPerSliceNs()));
    }

    @Test
    void theThreadsOfThisProcessAreRead() {
        long pid = ProcessHandle.current().pid();
        Prerequisite.require(Files.exists(Path.of("/proc", Long.toString(pid), "task")), "no /proc/PID/task (Linux only)");
        List<Sample> samples = ThreadSchedStats.read(pid);
        assertTrue(samples.stream().anyMatch(s -> s.tid() == pid && s.runNs() > 0 && s.slices() > 0), samples::toString);
    }
}
