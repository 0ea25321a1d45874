package dev.dprof.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.settings.DprofSettings;
import java.util.List;
import org.junit.jupiter.api.Test;

class ClusterTest {
    @Test
    void runsWorkerJvmsAndCollectsTheirSpans() throws Exception {
        Cluster.Result result = Cluster.builder().app("kmeans").workers(2).threads(2).iterations(3)
                .straggler(1, 2.0)
                .args("--points", "20000", "--k", "4", "--dimensions", "2")
                .jvmArgs(rank -> List.of("-Xmx256m", "-Dexample.rank.check=" + rank))
                .run();
        assertTrue(result.ok(), () -> "exit codes " + result.exitCodes() + ", output " + result.workers());
        assertEquals(List.of(0, 0), result.exitCodes());
        for (int rank = 0; rank < 2; rank++) {
            assertTrue(result.span(rank).isPresent(), "span line of rank " + rank);
        }
        assertEquals(2, result.spanLines().size());
        assertTrue(result.spanLines().get(1).startsWith("kmeans: rank 1 span "));
    }

    @Test
    void theServiceRunsAsServerAndClients() throws Exception {
        Cluster.Result result = Cluster.builder().app("service").workers(3).threads(2).iterations(2)
                .args("--requests", "10", "--rounds", "1000", "--sync-us", "100", "--verify", "true").run();
        assertTrue(result.ok(), () -> "exit codes " + result.exitCodes() + ", output " + result.workers());
        assertTrue(result.workers().get(0).output().contains("service: rank 0 server answered 80 requests"),
                () -> result.workers().get(0).output().toString());
    }

    @Test
    void aFailingWorkerFailsTheCluster() throws Exception {
        Cluster.Result result = Cluster.builder().app("pagerank").workers(2).threads(1)
                .args("--scale", "not-a-number").run();
        assertFalse(result.ok());
        assertTrue(result.exitCodes().stream().allMatch(code -> code != 0), () -> result.exitCodes().toString());
    }

    @Test
    void theCommandLineBecomesABuilder() {
        Cluster.Builder b = Cluster.parse(new String[] {"cc", "--workers", "3", "--threads", "4",
                "--straggler", "2", "--imbalance", "1.5", "--jvm-arg", "-Xmx1g", "--rank-jvm-arg", "1=-Dx=y",
                "--", "--scale", "12"});
        List<String> command = b.command(1, "h:1,h:2,h:3");
        assertTrue(command.contains("-D" + DprofSettings.PARTICIPANTS_PROPERTY + "=12"), command::toString);
        assertTrue(command.contains("-D" + DprofSettings.RANK_PROPERTY + "=1"));
        assertTrue(command.contains("-Xmx1g") && command.contains("-Dx=y"));
        assertEquals(List.of("--scale", "12"), command.subList(command.size() - 2, command.size()));
        assertFalse(b.command(0, "h:1,h:2,h:3").contains("-Dx=y"));
        assertTrue(String.join(" ", command).contains("--straggler 2 --imbalance 1.5"));
    }
}
