package dev.dprof.examples.service;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.dprof.examples.InProcess;
import dev.dprof.examples.worker.Args;
import java.util.List;
import org.junit.jupiter.api.Test;

class ServiceTest {
    private static final String[] SMALL = {"--iterations", "2", "--requests", "25", "--rounds", "2000",
            "--threads", "2", "--verify", "true"};

    /** Server or client, by rank; what each counted. */
    private static long[] run(Args args) throws Exception {
        if (args.rank() == 0) {
            return new long[] {Server.run(args).answered(), 0};
        }
        LoadClient.Result r = LoadClient.run(args);
        return new long[] {r.answered(), r.wrong()};
    }

    @Test
    void theServerAnswersEveryRequestCorrectly() throws Exception {
        List<long[]> counts = InProcess.run(3, Service.DEFAULTS, ServiceTest::run, SMALL);
        assertEquals(2 * 2 * 2 * 25, counts.get(0)[0], "server: 2 clients × 2 threads × 2 iterations × 25");
        for (int client = 1; client < 3; client++) {
            assertEquals(2 * 2 * 25, counts.get(client)[0]);
            assertEquals(0, counts.get(client)[1], "wrong answers");
        }
    }

    @Test
    void aStragglingClientOrServerGetsTheSameAnswers() throws Exception {
        for (String straggler : new String[] {"0", "2"}) {
            String[] options = java.util.Arrays.copyOf(SMALL, SMALL.length + 4);
            String[] extra = {"--straggler", straggler, "--imbalance", "2.5"};
            System.arraycopy(extra, 0, options, SMALL.length, extra.length);
            List<long[]> counts = InProcess.run(3, Service.DEFAULTS, ServiceTest::run, options);
            assertEquals(200, counts.get(0)[0]);
            assertEquals(0, counts.get(1)[1] + counts.get(2)[1], "wrong answers");
        }
    }

    @Test
    void requestIdsAreUniquePerRankAndThread() {
        assertEquals(0x0002_0001_0000_0005L, LoadClient.requestId(2, 1, 5));
    }
}
