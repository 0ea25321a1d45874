package dev.dprof.examples.pagerank;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.dprof.examples.InProcess;
import dev.dprof.examples.graph.RMat;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class PageRankTest {
    private static final String[] SMALL = {"--scale", "11", "--edge-factor", "8", "--iterations", "25",
            "--threads", "2", "--seed", "3"};

    @Test
    void ranksSumToOneAndMatchASequentialPageRank() throws Exception {
        List<PageRank.Result> results = InProcess.run(3, PageRank.DEFAULTS, PageRank::run, SMALL);
        double[] expected = sequential(RMat.generate(11, 8, 3), 0.85, 25);
        for (PageRank.Result r : results) {
            assertEquals(1.0, Arrays.stream(r.ranks()).sum(), 1e-9);
            assertArrayEquals(expected, r.ranks(), 1e-12);
        }
        long edges = results.stream().mapToLong(PageRank.Result::work).sum();
        assertEquals(25L * 8 * (1 << 11), edges, "every edge visited once per iteration");
    }

    @Test
    void aStragglerDoesMoreWorkButComputesTheSameRanks() throws Exception {
        List<PageRank.Result> balanced = InProcess.run(3, PageRank.DEFAULTS, PageRank::run, SMALL);
        String[] straggling = Arrays.copyOf(SMALL, SMALL.length + 4);
        System.arraycopy(new String[] {"--straggler", "2", "--imbalance", "3"}, 0, straggling, SMALL.length, 4);
        List<PageRank.Result> imbalanced = InProcess.run(3, PageRank.DEFAULTS, PageRank::run, straggling);
        for (int r = 0; r < 3; r++) {
            assertArrayEquals(balanced.get(r).ranks(), imbalanced.get(r).ranks(), 0);
        }
        assertEquals(balanced.get(0).work(), imbalanced.get(0).work());
        assertEquals(balanced.get(1).work(), imbalanced.get(1).work());
        assertEquals(3 * balanced.get(2).work(), imbalanced.get(2).work());
    }

    /** Plain power iteration with the dangling mass spread evenly. */
    static double[] sequential(RMat.Edges edges, double d, int iterations) {
        int n = edges.vertices();
        int[] out = new int[n];
        for (int u : edges.from()) {
            out[u]++;
        }
        double[] rank = new double[n];
        Arrays.fill(rank, 1.0 / n);
        for (int it = 0; it < iterations; it++) {
            double dangling = 0;
            for (int u = 0; u < n; u++) {
                if (out[u] == 0) {
                    dangling += rank[u];
                }
            }
            double[] next = new double[n];
            for (int e = 0; e < edges.count(); e++) {
                next[edges.to()[e]] += rank[edges.from()[e]] / out[edges.from()[e]];
            }
            for (int v = 0; v < n; v++) {
                next[v] = (1 - d) / n + d * dangling / n + d * next[v];
            }
            rank = next;
        }
        return rank;
    }
}
