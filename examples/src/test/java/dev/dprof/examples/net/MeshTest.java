package dev.dprof.examples.net;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.examples.InProcess;
import dev.dprof.examples.worker.Args;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class MeshTest {
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 5, 8, 9})
    void roundRobinMeetsEveryPairOnceAndIsSymmetric(int size) {
        Set<String> met = new HashSet<>();
        int rounds = size % 2 == 0 ? size - 1 : size;
        for (int round = 0; round < rounds; round++) {
            for (int r = 0; r < size; r++) {
                int p = Mesh.partner(r, round, size);
                if (p < size) {
                    assertEquals(r, Mesh.partner(p, round, size), "partner of the partner");
                    assertTrue(p != r);
                    if (r < p) {
                        assertTrue(met.add(r + "-" + p), "pair met twice: " + r + "-" + p);
                    }
                }
            }
        }
        assertEquals(size * (size - 1) / 2, met.size());
    }

    /** What every rank ends with after a round of every collective. */
    record Seen(double[] sums, long[] longs, double[] broadcast, double[] gathered, int[] gatheredInts) {
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4})
    void collectivesGiveEveryRankTheSameAnswer(int size) throws Exception {
        List<Seen> seen = InProcess.run(size, Args.COMMON, args -> {
            try (Mesh mesh = Mesh.connect(args.rank(), args.peers(), Duration.ofSeconds(30))) {
                int r = mesh.rank();
                double[] sums = {r, 1.5, -r * 2.0};
                mesh.allReduce(sums);
                long[] longs = {r, 1L << 40};
                mesh.allReduce(longs);
                double[] broadcast = r == size - 1 ? new double[] {7, 8, 9} : new double[3];
                mesh.broadcast(broadcast, size - 1);
                mesh.barrier();
                // uneven segments, one of them empty, and big enough to need several writes
                int[] bounds = new int[size + 1];
                for (int i = 1; i <= size; i++) {
                    bounds[i] = bounds[i - 1] + (i == 2 ? 0 : 300_000 + i);
                }
                double[] gathered = new double[bounds[size]];
                int[] gatheredInts = new int[bounds[size]];
                for (int i = bounds[r]; i < bounds[r + 1]; i++) {
                    gathered[i] = i * 0.5;
                    gatheredInts[i] = -i;
                }
                mesh.allGather(gathered, bounds);
                mesh.allGather(gatheredInts, bounds);
                return new Seen(sums, longs, broadcast, gathered, gatheredInts);
            }
        });
        double rankSum = size * (size - 1) / 2.0;
        for (Seen s : seen) {
            assertArrayEquals(new double[] {rankSum, 1.5 * size, -2 * rankSum}, s.sums(), 0);
            assertArrayEquals(new long[] {(long) rankSum, size * (1L << 40)}, s.longs());
            assertArrayEquals(new double[] {7, 8, 9}, s.broadcast(), 0);
            for (int i = 0; i < s.gathered().length; i++) {
                assertEquals(i * 0.5, s.gathered()[i]);
                assertEquals(-i, s.gatheredInts()[i]);
            }
        }
    }

    @Test
    void aSendMustBeAddressedFirstAndSeqsCountPerPairAndChannel() throws Exception {
        List<long[]> seqs = InProcess.run(2, Args.COMMON, args -> {
            try (Mesh mesh = Mesh.connect(args.rank(), args.peers(), Duration.ofSeconds(30))) {
                int peer = 1 - mesh.rank();
                Message m = new Message(Mesh.BROADCAST);
                if (mesh.rank() == 0) {
                    assertThrows(IllegalArgumentException.class, () -> mesh.send(peer, m));
                    mesh.send(peer, mesh.address(peer, Mesh.BROADCAST, m.putLongs(new long[] {5}, 0, 1)));
                    mesh.send(peer, mesh.address(peer, Mesh.BROADCAST, m));
                    return new long[] {};
                }
                long[] got = new long[2];
                for (int i = 0; i < 2; i++) {
                    Message in = new Message(Mesh.BROADCAST);
                    mesh.receive(peer, in);
                    got[i] = in.seq;
                }
                return got;
            }
        });
        assertArrayEquals(new long[] {Mesh.seqOf(0, 1, 0), Mesh.seqOf(0, 1, 1)}, seqs.get(1));
    }

    @Test
    void exchangeSwapsMessagesOnItsChannel() throws Exception {
        List<String> kinds = InProcess.run(2, Args.COMMON, args -> {
            try (Mesh mesh = Mesh.connect(args.rank(), args.peers(), Duration.ofSeconds(30))) {
                Message in = new Message();
                mesh.exchange(1 - mesh.rank(), new Message().putInts(new int[] {mesh.rank()}, 0, 1), in);
                int[] got = new int[1];
                in.getInts(got, 0);
                return in.channel + ":" + got[0];
            }
        });
        assertEquals(List.of(Mesh.EXCHANGE + ":1", Mesh.EXCHANGE + ":0"), kinds);
    }
}
