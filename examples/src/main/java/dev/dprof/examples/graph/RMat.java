package dev.dprof.examples.graph;

import java.util.SplittableRandom;
import java.util.stream.IntStream;

/**
 * A seeded R-MAT graph (Chakrabarti et al.; the Graph500 generator's probabilities
 * a=0.57, b=0.19, c=0.19, d=0.05): {@code edgeFactor × 2^scale} directed edges over
 * {@code 2^scale} vertices with a power-law degree distribution. Vertex ids are then permuted at
 * random, as Graph500 does, so the hubs are spread over the id range instead of sitting at 0.
 *
 * <p>Edges are drawn in chunks of 65536, each from a random stream of its own, so any subset of
 * the chunks can be drawn alone: rank r of N draws chunks r, r+N, r+2N, ... and the N parts
 * together are exactly the whole graph.
 */
public final class RMat {
    /** The edges as two parallel arrays of vertex ids. */
    public record Edges(int vertices, int[] from, int[] to) {
        public int count() {
            return from.length;
        }
    }

    private static final int A = (int) (0.57 * 65536);
    private static final int AB = (int) (0.76 * 65536);
    private static final int ABC = (int) (0.95 * 65536);
    private static final int CHUNK = 1 << 16;

    private RMat() {
    }

    /** The whole graph. */
    public static Edges generate(int scale, int edgeFactor, long seed) {
        return generate(scale, edgeFactor, seed, 0, 1);
    }

    /** Part {@code part} of {@code parts}: the chunks whose index is {@code part} modulo {@code parts}. */
    public static Edges generate(int scale, int edgeFactor, long seed, int part, int parts) {
        if (scale < 1 || scale > 30 || edgeFactor < 1 || ((long) edgeFactor << scale) > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("R-MAT scale " + scale + ", edge factor " + edgeFactor
                    + " is out of range (scale 1..30, at most 2^31 edges)");
        }
        if (part < 0 || part >= parts) {
            throw new IllegalArgumentException("part " + part + " of " + parts);
        }
        int vertices = 1 << scale;
        int total = edgeFactor << scale;
        int chunks = (total + CHUNK - 1) / CHUNK;
        int mine = chunks <= part ? 0 : (chunks - part + parts - 1) / parts;
        int count = 0;
        for (int i = 0; i < mine; i++) {
            int chunk = part + i * parts;
            count += Math.min(total, (chunk + 1) * CHUNK) - chunk * CHUNK;
        }
        int[] from = new int[count];
        int[] to = new int[count];
        int[] permutation = permutation(vertices, seed);
        IntStream.range(0, mine).parallel().forEach(i -> {
            int chunk = part + i * parts;
            SplittableRandom random = new SplittableRandom(seed ^ (0x5DEECE66DL * (chunk + 1)));
            int first = chunk * CHUNK;
            int end = Math.min(total, first + CHUNK);
            int at = i * CHUNK;
            for (int e = first; e < end; e++, at++) {
                int u = 0;
                int v = 0;
                long bits = 0;
                for (int level = 0; level < scale; level++) {
                    if (level % 4 == 0) {
                        bits = random.nextLong();
                    }
                    int r = (int) (bits & 0xFFFF);
                    bits >>>= 16;
                    // branch-free quadrant: (x - 1 - r) >>> 31 is 1 exactly when r >= x;
                    // a = (0,0), b = (0,1), c = (1,0), d = (1,1)
                    int atLeastA = (A - 1 - r) >>> 31;
                    int atLeastAB = (AB - 1 - r) >>> 31;
                    int atLeastABC = (ABC - 1 - r) >>> 31;
                    u = u << 1 | atLeastAB;
                    v = v << 1 | (atLeastA ^ atLeastAB ^ atLeastABC);
                }
                from[at] = permutation[u];
                to[at] = permutation[v];
            }
        });
        return new Edges(vertices, from, to);
    }

    private static int[] permutation(int n, long seed) {
        int[] p = new int[n];
        for (int i = 0; i < n; i++) {
            p[i] = i;
        }
        SplittableRandom random = new SplittableRandom(~seed);
        for (int i = n - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = p[i];
            p[i] = p[j];
            p[j] = t;
        }
        return p;
    }
}
