package dev.dprof.examples.graph;

/**
 * The adjacency of the vertices {@code [lo, hi)} in compressed-sparse-row form: the neighbours of
 * vertex v are {@code adjacent[start[v - lo] .. start[v - lo + 1])}, in edge order.
 */
public record Csr(int lo, int hi, int[] start, int[] adjacent) {
    /** The sources of the edges into each vertex of {@code [lo, hi)}; edges into other vertices are skipped. */
    public static Csr incoming(RMat.Edges edges, int lo, int hi) {
        int[] from = edges.from();
        int[] to = edges.to();
        int[] start = new int[hi - lo + 1];
        for (int v : to) {
            if (v >= lo && v < hi) {
                start[v - lo + 1]++;
            }
        }
        for (int v = 0; v < hi - lo; v++) {
            start[v + 1] += start[v];
        }
        int[] fill = start.clone();
        int[] adjacent = new int[start[hi - lo]];
        for (int e = 0; e < from.length; e++) {
            if (to[e] >= lo && to[e] < hi) {
                adjacent[fill[to[e] - lo]++] = from[e];
            }
        }
        return new Csr(lo, hi, start, adjacent);
    }

    /** Edges of the vertices {@code [from, to)} (a subrange of {@code [lo, hi)}). */
    public long edges(int from, int to) {
        return start[to - lo] - start[from - lo];
    }
}
