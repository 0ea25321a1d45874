package dev.dprof.examples.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.examples.InProcess;
import dev.dprof.examples.worker.Args;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class ServiceTest {
    /** 2 clients × 2 threads × 2 iterations × 25 requests, each synced for 200 µs. */
    private static final String[] SMALL = {"--iterations", "2", "--requests", "25", "--rounds", "2000",
            "--threads", "2", "--verify", "true", "--sync-us", "200"};
    private static final int REQUESTS = 2 * 2 * 2 * 25;

    /** What each rank counted: the server's result, or a client's. */
    private record Counts(Server.Result server, LoadClient.Result client) {
    }

    private static Counts run(Args args) throws Exception {
        return args.rank() == 0 ? new Counts(Server.run(args), null) : new Counts(null, LoadClient.run(args));
    }

    private static List<Counts> cluster(String... extra) throws Exception {
        List<String> options = new ArrayList<>(Arrays.asList(SMALL));
        options.addAll(List.of(extra));
        return InProcess.run(3, Service.DEFAULTS, ServiceTest::run, options.toArray(String[]::new));
    }

    /** Every request went through every stage once, and every client got right answers only. */
    private static Server.Result assertAllAnswered(List<Counts> counts) {
        Server.Result server = counts.get(0).server();
        assertEquals(REQUESTS, server.answered(), "server: 2 clients × 2 threads × 2 iterations × 25");
        assertEquals(REQUESTS, server.synced(), "every answer synced by the journal first");
        for (int client = 1; client < 3; client++) {
            assertEquals(REQUESTS / 2, counts.get(client).client().answered());
            assertEquals(0, counts.get(client).client().wrong(), "wrong answers");
        }
        return server;
    }

    @Test
    void theServerAnswersEveryRequestCorrectly() throws Exception {
        assertAllAnswered(cluster());
    }

    @Test
    void aStragglingClientOrServerGetsTheSameAnswers() throws Exception {
        long digest = assertAllAnswered(cluster()).journalDigest();
        for (String straggler : new String[] {"0", "2"}) {
            Server.Result r = assertAllAnswered(cluster("--straggler", straggler, "--imbalance", "2.5"));
            assertEquals(digest, r.journalDigest(), "the journal recorded other answers with straggler " + straggler);
        }
    }

    @Test
    void theSwitchRemovesItsFractionOfEverySync() throws Exception {
        Server.Result slow = assertAllAnswered(cluster());
        Server.Result fast = assertAllAnswered(cluster("--sync-speedup", "0.75"));
        assertEquals(REQUESTS * 200_000L, slow.syncWaitNanos());
        assertEquals(REQUESTS * 50_000L, fast.syncWaitNanos(), "a quarter of each 200 µs sync left");
        // the same requests journaled with the same answers: only the syncs' waits changed
        assertEquals(slow.journalDigest(), fast.journalDigest());
    }

    @Test
    void eachSyncWaitsWhatTheSwitchLeaves() {
        assertEquals(4_000_000, Journal.waitNanos(4_000_000, 0));
        assertEquals(2_000_000, Journal.waitNanos(4_000_000, 0.5));
        assertEquals(1, Journal.waitNanos(3, 0.6), "rounded to the nanosecond");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new Journal(1000, 1));
        assertTrue(e.getMessage().contains("--sync-speedup"), e::getMessage);
        assertThrows(IllegalArgumentException.class, () -> new Journal(1000, -0.1));
        assertThrows(IllegalArgumentException.class, () -> new Journal(-1, 0));
    }

    @Test
    void theJournalSyncsInOrderAndStopsAtTheEnd() throws Exception {
        Journal journal = new Journal(0, 0);
        List<Long> handed = new ArrayList<>();
        for (long seq = 1; seq <= 3; seq++) {
            journal.append(new Exchange(0, seq, seq, 1, 1));
        }
        journal.append(Exchange.end());
        journal.append(new Exchange(0, 99, 99, 1, 1));
        journal.run(e -> handed.add(e.seq));
        assertEquals(List.of(1L, 2L, 3L), handed, "synced in arrival order, nothing after the end");
        assertEquals(3, journal.synced());
    }

    @Test
    void requestIdsAreUniquePerRankAndThread() {
        assertEquals(0x0002_0001_0000_0005L, LoadClient.requestId(2, 1, 5));
    }
}
