package dev.dprof.consolidator.consolidate;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.dprof.consolidator.analysis.stats.ProfileStatistics;
import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.format.HandoffRegions;
import dev.dprof.format.RecordType;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The run's unmatched events are one figure, counted at consolidation by kind and reason, and the
 * one every output prints: a client profiled with its server, and one connection to a peer nobody
 * profiled.
 */
class UnmatchedCountsTest {
    private static final String DOMAIN = "tsc@test";

    /**
     * The client writes 0–8 and 8–16 to the server, which reads only up to 8 before its recording ends;
     * it also writes three times to 10.0.0.9:9999 (not profiled) and reads once from it.
     */
    @Test
    void everyUnmatchedEventHasItsKindAndReasonAndStatisticsSayTheSame(@TempDir Path dir) throws Exception {
        Path run = dir.resolve("run");
        try (TcpQueues server = new TcpQueues(run.resolve("server"), RecordType.FORMAT_VERSION, 1, DOMAIN);
             TcpQueues a = new TcpQueues(run.resolve("a"), RecordType.FORMAT_VERSION, 2, DOMAIN)) {
            a.connection(1, "127.0.0.2:40555", "127.0.0.1:8080");
            server.connection(1, "127.0.0.1:8080", "127.0.0.2:40555");
            a.connection(2, "10.0.0.2:40556", "10.0.0.9:9999");
            a.thread(1).write(100, 1, 0, 0, 0).write(110, 1, 0, 0, 8)
                    .write(120, 2, 0, 0, 0).write(130, 2, 0, 0, 4).write(140, 2, 0, 0, 8).read(150, 2, 0, 0, 4)
                    .flush();
            server.thread(10).read(200, 1, 0, 0, 8).flush();
        }
        Path out = dir.resolve("profile");
        ProfileInfo info = Consolidator.run(new Consolidator.Options(List.of(run), List.of(), out,
                Consolidator.Sync.NONE, null, Optional.empty()), n -> { });
        ProfileInfo.Messages m = info.messages();
        assertEquals(List.of(
                new ProfileInfo.Unmatched("tcp", "send", UnmatchedCounts.PEER_NOT_PROFILED, 3),
                new ProfileInfo.Unmatched("tcp", "send", UnmatchedCounts.NOT_READ, 1),
                new ProfileInfo.Unmatched("tcp", "receive", UnmatchedCounts.PEER_NOT_PROFILED, 1)), m.unmatched());
        assertEquals(4, m.unmatchedSends());
        assertEquals(1, m.unmatchedReceives());
        assertEquals(List.of("tcp: 4 sends unmatched [3 " + UnmatchedCounts.PEER_NOT_PROFILED + ", 1 "
                + UnmatchedCounts.NOT_READ + "], 1 receive unmatched [1 " + UnmatchedCounts.PEER_NOT_PROFILED + "]"),
                m.unmatchedLines());

        Profile profile = Profile.open(out);
        assertEquals(m, profile.info().messages(), "profile.json keeps the rows");
        ProfileStatistics.Result stats = ProfileStatistics.compute(profile);
        assertEquals(4, stats.totals().unmatchedSends());
        assertEquals(1, stats.totals().unmatchedReceives());
        assertEquals(List.of("unmatched: " + m.unmatchedLines().get(0)),
                stats.notes().stream().filter(n -> n.startsWith("unmatched: ")).toList());
    }

    @Test
    void rowsGoByKindAndEventInTheOrderMetTheMostFrequentReasonFirst() {
        UnmatchedCounts counts = new UnmatchedCounts();
        counts.add("net.send", UnmatchedCounts.SEND, UnmatchedCounts.NO_RECEIVE);
        counts.add("tcp", UnmatchedCounts.SEND, UnmatchedCounts.NOT_READ);
        counts.add("tcp", UnmatchedCounts.SEND, UnmatchedCounts.PEER_NOT_PROFILED);
        counts.add("tcp", UnmatchedCounts.SEND, UnmatchedCounts.PEER_NOT_PROFILED);
        counts.add("handoff queue", UnmatchedCounts.TAKE, UnmatchedCounts.NO_PUT);
        assertEquals(List.of(
                new ProfileInfo.Unmatched("net.send", "send", UnmatchedCounts.NO_RECEIVE, 1),
                new ProfileInfo.Unmatched("tcp", "send", UnmatchedCounts.PEER_NOT_PROFILED, 2),
                new ProfileInfo.Unmatched("tcp", "send", UnmatchedCounts.NOT_READ, 1),
                new ProfileInfo.Unmatched("handoff queue", "take", UnmatchedCounts.NO_PUT, 1)), counts.rows());
        assertEquals(4, counts.total(UnmatchedCounts.SEND));
        assertEquals(1, counts.total(UnmatchedCounts.TAKE));
    }

    @Test
    void aHandoffsKindComesFromItsSiteName() {
        assertEquals("handoff queue", UnmatchedCounts.handoffKind(
                HandoffRegions.siteName(HandoffRegions.Kind.QUEUE, "ArrayBlockingQueue", "Main.main:3")));
        assertEquals("handoff thread", UnmatchedCounts.handoffKind(HandoffRegions.threadsName()));
        assertEquals("handoff custom", UnmatchedCounts.handoffKind("orders.enqueue"));
        assertEquals("a notify no waiting thread woke from", UnmatchedCounts.notTaken("handoff monitor"));
        assertEquals(UnmatchedCounts.NOT_TAKEN, UnmatchedCounts.notTaken("handoff custom"));
    }

    @Test
    void aProfileWrittenBeforeTheSplitSaysSo() {
        ProfileInfo.Messages old = new ProfileInfo.Messages(3, 4042, 2, 0, 3, 0, 0);
        assertEquals(List.of("4042 sends and 2 receives unmatched (this profile predates their split by kind and "
                + "reason)"), old.unmatchedLines());
        assertEquals(List.of(), new ProfileInfo.Messages(3, 0, 0, 0, 3, 0, 0).unmatchedLines());
    }
}
