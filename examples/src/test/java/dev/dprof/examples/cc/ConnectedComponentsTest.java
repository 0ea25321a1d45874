package dev.dprof.examples.cc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.examples.InProcess;
import dev.dprof.examples.graph.RMat;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConnectedComponentsTest {
    private static final String[] SMALL = {"--scale", "11", "--edge-factor", "2", "--iterations", "100",
            "--threads", "2", "--seed", "5"};

    @Test
    void labelsAreTheSmallestIdOfEachComponentAsUnionFindSays() throws Exception {
        List<ConnectedComponents.Result> results = InProcess.run(3, ConnectedComponents.DEFAULTS,
                ConnectedComponents::run, SMALL);
        int[] expected = unionFind(RMat.generate(11, 2, 5));
        assertTrue(Arrays.stream(expected).distinct().count() > 10, "a graph with several components");
        for (ConnectedComponents.Result r : results) {
            assertTrue(r.stable());
            assertArrayEquals(expected, r.labels());
            assertEquals(results.get(0).iterations(), r.iterations());
        }
    }

    @Test
    void aStragglerDoesMoreWorkButFindsTheSameComponents() throws Exception {
        List<ConnectedComponents.Result> balanced = InProcess.run(3, ConnectedComponents.DEFAULTS,
                ConnectedComponents::run, SMALL);
        String[] straggling = Arrays.copyOf(SMALL, SMALL.length + 4);
        System.arraycopy(new String[] {"--straggler", "0", "--imbalance", "2"}, 0, straggling, SMALL.length, 4);
        List<ConnectedComponents.Result> imbalanced = InProcess.run(3, ConnectedComponents.DEFAULTS,
                ConnectedComponents::run, straggling);
        for (int r = 0; r < 3; r++) {
            assertArrayEquals(balanced.get(r).labels(), imbalanced.get(r).labels());
            assertEquals(balanced.get(r).iterations(), imbalanced.get(r).iterations());
        }
        assertEquals(2 * balanced.get(0).work(), imbalanced.get(0).work());
        assertEquals(balanced.get(1).work(), imbalanced.get(1).work());
        assertEquals(balanced.get(2).work(), imbalanced.get(2).work());
    }

    /** Component labels by union-find: each vertex gets the smallest id in its component. */
    static int[] unionFind(RMat.Edges edges) {
        int n = edges.vertices();
        int[] parent = new int[n];
        for (int v = 0; v < n; v++) {
            parent[v] = v;
        }
        for (int e = 0; e < edges.count(); e++) {
            int a = find(parent, edges.from()[e]);
            int b = find(parent, edges.to()[e]);
            // the smaller id stays the root, so the root is the component's smallest id
            if (a < b) {
                parent[b] = a;
            } else if (b < a) {
                parent[a] = b;
            }
        }
        int[] labels = new int[n];
        for (int v = 0; v < n; v++) {
            labels[v] = find(parent, v);
        }
        return labels;
    }

    private static int find(int[] parent, int v) {
        while (parent[v] != v) {
            parent[v] = parent[parent[v]];
            v = parent[v];
        }
        return v;
    }
}
