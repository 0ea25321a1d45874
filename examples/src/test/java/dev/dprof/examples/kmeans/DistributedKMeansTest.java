package dev.dprof.examples.kmeans;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.examples.InProcess;
import java.util.List;
import org.junit.jupiter.api.Test;

class DistributedKMeansTest {
    private static final int K = 5;
    private static final int DIMS = 3;
    private static final String[] SMALL = {"--points", "20000", "--k", "5", "--dimensions", "3",
            "--iterations", "12", "--threads", "2", "--seed", "7"};

    @Test
    void convergesToTheGeneratedClustersOnEveryRank() throws Exception {
        List<DistributedKMeans.Result> results = InProcess.run(3, DistributedKMeans.DEFAULTS,
                DistributedKMeans::run, SMALL);
        double[] centres = DistributedKMeans.centres(7, K, DIMS);
        double[] found = results.get(0).centroids();
        boolean[] taken = new boolean[K];
        for (int c = 0; c < K; c++) {
            int match = -1;
            for (int t = 0; t < K; t++) {
                double distance = 0;
                for (int d = 0; d < DIMS; d++) {
                    distance += Math.pow(found[c * DIMS + d] - centres[t * DIMS + d], 2);
                }
                if (Math.sqrt(distance) < 0.1) {
                    match = t;
                }
            }
            assertTrue(match >= 0 && !taken[match], "centroid " + c + " is at no true centre of its own");
            taken[match] = true;
        }
        for (DistributedKMeans.Result r : results) {
            assertArrayEquals(found, r.centroids(), 0, "every rank has the same centroids");
            assertEquals(0, r.change(), 1e-12, "converged");
            assertEquals(12L * 20_000, r.work());
        }
    }

    @Test
    void aStragglerDoesMoreWorkButFindsTheSameCentroids() throws Exception {
        List<DistributedKMeans.Result> balanced = InProcess.run(3, DistributedKMeans.DEFAULTS,
                DistributedKMeans::run, SMALL);
        String[] straggling = concat(SMALL, "--straggler", "1", "--imbalance", "2.5");
        List<DistributedKMeans.Result> imbalanced = InProcess.run(3, DistributedKMeans.DEFAULTS,
                DistributedKMeans::run, straggling);
        for (int r = 0; r < 3; r++) {
            assertArrayEquals(balanced.get(r).centroids(), imbalanced.get(r).centroids(), 0);
        }
        assertEquals(balanced.get(0).work(), imbalanced.get(0).work());
        assertEquals(balanced.get(2).work(), imbalanced.get(2).work());
        assertEquals(2.5 * balanced.get(1).work(), imbalanced.get(1).work(), 12 * 2);
    }

    static String[] concat(String[] a, String... b) {
        String[] all = new String[a.length + b.length];
        System.arraycopy(a, 0, all, 0, a.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }
}
