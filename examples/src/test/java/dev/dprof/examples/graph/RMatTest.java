package dev.dprof.examples.graph;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.examples.InProcess;
import dev.dprof.examples.net.Mesh;
import dev.dprof.examples.worker.Args;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class RMatTest {
    @Test
    void theSameSeedGivesTheSameGraph() {
        RMat.Edges a = RMat.generate(12, 4, 9);
        RMat.Edges b = RMat.generate(12, 4, 9);
        assertArrayEquals(a.from(), b.from());
        assertArrayEquals(a.to(), b.to());
        assertEquals(4 << 12, a.count());
        assertTrue(Arrays.stream(a.from()).allMatch(v -> v >= 0 && v < 1 << 12));
    }

    @Test
    void thePartsTogetherAreTheWholeGraph() {
        RMat.Edges whole = RMat.generate(17, 3, 4);
        List<Long> all = new ArrayList<>();
        for (int part = 0; part < 3; part++) {
            RMat.Edges p = RMat.generate(17, 3, 4, part, 3);
            for (int e = 0; e < p.count(); e++) {
                all.add((long) p.from()[e] << 32 | p.to()[e]);
            }
        }
        List<Long> expected = new ArrayList<>();
        for (int e = 0; e < whole.count(); e++) {
            expected.add((long) whole.from()[e] << 32 | whole.to()[e]);
        }
        all.sort(null);
        expected.sort(null);
        assertEquals(expected, all);
    }

    @Test
    void degreesFollowAPowerLaw() {
        RMat.Edges edges = RMat.generate(14, 8, 1);
        int[] degree = new int[edges.vertices()];
        for (int e = 0; e < edges.count(); e++) {
            degree[edges.from()[e]]++;
            degree[edges.to()[e]]++;
        }
        int max = Arrays.stream(degree).max().orElseThrow();
        double mean = Arrays.stream(degree).average().orElseThrow();
        assertTrue(max > 50 * mean, "hubs: max degree " + max + ", mean " + mean);
    }

    @Test
    void loadingGivesEachRankTheEdgesIntoItsVerticesAndBalancesThem() throws Exception {
        RMat.Edges whole = RMat.generate(14, 8, 1);
        List<Partitioned> parts = InProcess.run(4, Args.COMMON, args -> {
            try (Mesh mesh = Mesh.connect(args.rank(), args.peers(), Duration.ofSeconds(30))) {
                return Partitioned.load(mesh, 14, 8, 1, false);
            }
        });
        long total = whole.count() + whole.vertices();
        for (int rank = 0; rank < 4; rank++) {
            Partitioned p = parts.get(rank);
            assertArrayEquals(parts.get(0).bounds(), p.bounds());
            Csr expected = Csr.incoming(whole, p.lo(rank), p.hi(rank));
            Csr got = p.incoming();
            assertArrayEquals(expected.start(), got.start());
            for (int v = 0; v + 1 < got.start().length; v++) {
                int[] a = Arrays.copyOfRange(expected.adjacent(), expected.start()[v], expected.start()[v + 1]);
                int[] b = Arrays.copyOfRange(got.adjacent(), got.start()[v], got.start()[v + 1]);
                Arrays.sort(a);
                Arrays.sort(b);
                assertArrayEquals(a, b, "in-neighbours of " + (v + p.lo(rank)));
            }
            long weight = got.adjacent().length + (p.hi(rank) - p.lo(rank));
            assertEquals(total / 4.0, weight, total * 0.02, "rank " + rank + " carries a quarter");
        }
    }

    @Test
    void ownersFollowTheBoundsAndSkipEmptyRanges() {
        int[] bounds = {0, 0, 5, 5, 10};
        assertEquals(1, Partitioned.owner(bounds, 0));
        assertEquals(1, Partitioned.owner(bounds, 4));
        assertEquals(3, Partitioned.owner(bounds, 5));
        assertEquals(3, Partitioned.owner(bounds, 9));
    }
}
