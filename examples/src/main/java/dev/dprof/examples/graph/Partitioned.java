package dev.dprof.examples.graph;

import dev.dprof.examples.net.Mesh;
import dev.dprof.examples.worker.Share;
import java.io.IOException;
import java.util.Arrays;

/**
 * One rank's part of the R-MAT graph, loaded the distributed way (the paper's Alg. 7 line 2,
 * {@code Send_Receive(objects)}): every rank draws 1/N of the edges ({@link RMat}), the degrees
 * are all-reduced, the vertices are split into ranges of about equal weight (edges plus one per
 * vertex: equal vertex counts would give one rank more hubs), and every edge is sent to the rank
 * that owns its head ({@link Mesh#allToAll}).
 *
 * @param bounds   rank r owns the vertices {@code [bounds[r], bounds[r+1])}
 * @param incoming for each owned vertex, the vertices with an edge into it (with undirected
 *                 loading: every neighbour)
 * @param outDegree every vertex's out-degree in the directed graph
 * @param weight   the weight each vertex was partitioned by
 */
public record Partitioned(int vertices, int[] bounds, Csr incoming, int[] outDegree, int[] weight) {
    /**
     * Loads this rank's part. With {@code undirected} every edge counts in both directions: its
     * tail's owner gets it too, reversed, and a vertex weighs its in- plus out-degree.
     */
    public static Partitioned load(Mesh mesh, int scale, int edgeFactor, long seed, boolean undirected)
            throws IOException {
        RMat.Edges drawn = RMat.generate(scale, edgeFactor, seed, mesh.rank(), mesh.size());
        int n = drawn.vertices();
        int[] in = new int[n];
        int[] out = new int[n];
        for (int e = 0; e < drawn.count(); e++) {
            out[drawn.from()[e]]++;
            in[drawn.to()[e]]++;
        }
        mesh.allReduce(in);
        mesh.allReduce(out);
        int[] weight = new int[n];
        for (int v = 0; v < n; v++) {
            weight[v] = in[v] + (undirected ? out[v] : 0) + 1;
        }
        int[] bounds = Share.byWeight(0, n, mesh.size(), v -> weight[v]);
        int[][] outgoing = route(drawn, bounds, undirected);
        int[][] received = mesh.allToAll(outgoing);
        int total = 0;
        for (int[] pairs : received) {
            total += pairs.length / 2;
        }
        int[] from = new int[total];
        int[] to = new int[total];
        int at = 0;
        for (int[] pairs : received) {
            for (int i = 0; i < pairs.length; i += 2, at++) {
                from[at] = pairs[i];
                to[at] = pairs[i + 1];
            }
        }
        int lo = bounds[mesh.rank()];
        int hi = bounds[mesh.rank() + 1];
        return new Partitioned(n, bounds, Csr.incoming(new RMat.Edges(n, from, to), lo, hi), out, weight);
    }

    /** Per owner, the (tail, head) pairs whose head it owns, interleaved. */
    private static int[][] route(RMat.Edges drawn, int[] bounds, boolean undirected) {
        int parts = bounds.length - 1;
        int[] counts = new int[parts];
        for (int e = 0; e < drawn.count(); e++) {
            counts[owner(bounds, drawn.to()[e])]++;
            if (undirected) {
                counts[owner(bounds, drawn.from()[e])]++;
            }
        }
        int[][] outgoing = new int[parts][];
        for (int p = 0; p < parts; p++) {
            outgoing[p] = new int[2 * counts[p]];
        }
        int[] fill = new int[parts];
        for (int e = 0; e < drawn.count(); e++) {
            int u = drawn.from()[e];
            int v = drawn.to()[e];
            int p = owner(bounds, v);
            outgoing[p][fill[p]++] = u;
            outgoing[p][fill[p]++] = v;
            if (undirected) {
                p = owner(bounds, u);
                outgoing[p][fill[p]++] = v;
                outgoing[p][fill[p]++] = u;
            }
        }
        return outgoing;
    }

    static int owner(int[] bounds, int v) {
        int i = Arrays.binarySearch(bounds, v);
        // an exact hit may be the end of empty ranges: take the last range starting at v
        if (i >= 0) {
            while (i + 1 < bounds.length - 1 && bounds[i + 1] == v) {
                i++;
            }
            return i;
        }
        return -i - 2;
    }

    public int lo(int rank) {
        return bounds[rank];
    }

    public int hi(int rank) {
        return bounds[rank + 1];
    }
}
