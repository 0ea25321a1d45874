package dev.dprof.examples.kmeans;

import dev.dprof.examples.net.Mesh;
import dev.dprof.examples.worker.Args;
import dev.dprof.examples.worker.Lockstep;
import dev.dprof.examples.worker.Main;
import dev.dprof.examples.worker.Outcome;
import dev.dprof.examples.worker.Passes;
import dev.dprof.examples.worker.Share;
import dev.dprof.examples.worker.Span;
import dev.dprof.examples.worker.SpanClock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;

/**
 * K-Means over N worker processes with T threads each, the DProf paper's Alg. 7. Every rank holds
 * its own {@code --points} points, drawn around {@code --k} seeded cluster centres. Each iteration
 * every thread assigns its part of the rank's points to the nearest centroid
 * ({@link Worker#assign}, the body region), then waits in {@link Worker#awaitReduce} (the barrier
 * region, keyed by the iteration, N×T participants) until the last thread of the process has
 * summed the threads' partial sums and all-reduced them over the cluster ({@link Mesh#allReduce},
 * once for the coordinate sums, once for the counts), and the new centroids are known. The
 * threads' loop is {@link Lockstep}'s, which the PageRank and CC examples share.
 *
 * <p>Straggler: with {@code --straggler R --imbalance X} every thread of rank R runs its
 * assignment loop X times over its points (see {@link Passes}); the centroids do not change.
 *
 * <p>No dprof code here: the regions are picked by {@code examples/kmeans/dprof-distributed.yaml}.
 *
 * <h2>How to run this</h2>
 * <pre>
 * mvn -B -q install -DskipTests -pl examples
 * java -cp examples/target/dprof-examples.jar dev.dprof.examples.Cluster kmeans \
 *      --workers 4 --threads 2 --straggler 1 --imbalance 2 \
 *      --jvm-arg -javaagent:$(./dprof agent-jar)=config=examples/kmeans/dprof-distributed.yaml
 * # or one worker by hand (the launcher adds -Ddprof.rank and -Ddprof.participants):
 * java -Ddprof.rank=0 -Ddprof.participants=2 -cp examples/target/dprof-examples.jar \
 *      dev.dprof.examples.kmeans.DistributedKMeans --rank 0 --peers 127.0.0.1:7000 --threads 2
 * </pre>
 * Options (defaults): {@code --points 600000} per rank, {@code --k 16}, {@code --dimensions 8},
 * {@code --iterations 10}, {@code --threads 2}, {@code --seed 42}, {@code --straggler -1},
 * {@code --imbalance 1}. Prints the centroid movement of the last iteration and
 * {@code kmeans: rank R span S s}.
 */
public final class DistributedKMeans {
    static final Map<String, String> DEFAULTS = Args.defaults(Map.of(
            "points", "600000", "k", "16", "dimensions", "8"));
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(60);
    /** Side of the cube the cluster centres are drawn from; the points' spread is 1. */
    private static final double SPACE = 100;
    /** Points rank 0 looks at to pick the initial centroids. */
    private static final int INIT_SAMPLE = 20_000;

    private final Args args;
    private final Mesh mesh;
    private final int k;
    private final int dims;
    private final double[] points;
    private final double[] centroids;
    private final double[][] threadSums;
    private final long[][] threadCounts;
    private final long[] threadWork;
    private final CyclicBarrier barrier;
    /** The iterations' span; the barrier action marks each iteration's end. */
    private final SpanClock clock = new SpanClock();
    private double change = Double.NaN;

    private DistributedKMeans(Args args, Mesh mesh) {
        this.args = args;
        this.mesh = mesh;
        this.k = args.integer("k");
        this.dims = args.integer("dimensions");
        if (k < 1 || dims < 1 || args.integer("points") < k) {
            throw new IllegalArgumentException("need --k >= 1, --dimensions >= 1 and --points >= k");
        }
        this.points = generatePoints(args.seed(), args.rank(), args.integer("points"), k, dims);
        this.centroids = new double[k * dims];
        this.threadSums = new double[args.threads()][k * dims];
        this.threadCounts = new long[args.threads()][k];
        this.threadWork = new long[args.threads()];
        this.barrier = new CyclicBarrier(args.threads(), this::reduce);
    }

    public static void main(String[] argv) {
        Main.run("kmeans", argv, DEFAULTS, args -> run(args).outcome());
    }

    /** The converged centroids (k×dimensions, row-major), this rank's work and its span. */
    public record Result(int rank, double[] centroids, double change, long work, Span span) {
        Outcome outcome() {
            return new Outcome("kmeans", rank, List.of(String.format(Locale.ROOT,
                    "last centroid movement %.3e, %d point visits", change, work)), span);
        }
    }

    /** Runs one rank to the end. */
    public static Result run(Args args) throws Exception {
        try (Mesh mesh = Mesh.connect(args.rank(), args.peers(), CONNECT_TIMEOUT)) {
            DistributedKMeans kmeans = new DistributedKMeans(args, mesh);
            kmeans.initCentroids();
            Span span = Lockstep.run("kmeans", args, mesh, kmeans.clock, t -> kmeans.new Worker(t));
            return new Result(args.rank(), kmeans.centroids.clone(), kmeans.change,
                    Arrays.stream(kmeans.threadWork).sum(), span);
        }
    }

    /** The true cluster centres: the same on every rank, from the seed alone. */
    static double[] centres(long seed, int k, int dims) {
        SplittableRandom random = new SplittableRandom(seed);
        double[] centres = new double[k * dims];
        for (int i = 0; i < centres.length; i++) {
            centres[i] = random.nextDouble() * SPACE;
        }
        return centres;
    }

    /** This rank's points: each near a centre chosen at random, from a stream of its own. */
    static double[] generatePoints(long seed, int rank, int count, int k, int dims) {
        double[] centres = centres(seed, k, dims);
        SplittableRandom random = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + rank + 1);
        double[] points = new double[count * dims];
        for (int p = 0; p < count; p++) {
            int c = random.nextInt(k);
            for (int d = 0; d < dims; d++) {
                points[p * dims + d] = centres[c * dims + d] + nextGaussian(random);
            }
        }
        return points;
    }

    private static double nextGaussian(SplittableRandom random) {
        // Box-Muller: SplittableRandom has no nextGaussian on Java 17
        double u = 1 - random.nextDouble();
        return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random.nextDouble());
    }

    /**
     * Alg. 7 lines 3–4: rank 0 picks the initial centroids by farthest-first traversal of a
     * sample of its points (one in each true cluster when they are well apart) and broadcasts
     * them.
     */
    private void initCentroids() throws IOException {
        if (mesh.rank() == 0) {
            int sample = Math.min(INIT_SAMPLE, points.length / dims);
            double[] nearest = new double[sample];
            Arrays.fill(nearest, Double.MAX_VALUE);
            int chosen = 0;
            for (int c = 0; c < k; c++) {
                System.arraycopy(points, chosen * dims, centroids, c * dims, dims);
                int farthest = 0;
                for (int p = 0; p < sample; p++) {
                    nearest[p] = Math.min(nearest[p], distance(points, p * dims, centroids, c * dims));
                    if (nearest[p] > nearest[farthest]) {
                        farthest = p;
                    }
                }
                chosen = farthest;
            }
        }
        mesh.broadcast(centroids, 0);
    }

    private double distance(double[] a, int at, double[] b, int bt) {
        double sum = 0;
        for (int d = 0; d < dims; d++) {
            double diff = a[at + d] - b[bt + d];
            sum += diff * diff;
        }
        return sum;
    }

    /**
     * The barrier action, run by the last thread to arrive: thread sums to process sums, process
     * sums to cluster sums, cluster sums to centroids. Same order everywhere, so every rank
     * computes bitwise the same centroids.
     */
    private void reduce() {
        double[] sums = new double[k * dims];
        long[] counts = new long[k];
        for (int t = 0; t < threadSums.length; t++) {
            for (int i = 0; i < sums.length; i++) {
                sums[i] += threadSums[t][i];
            }
            for (int c = 0; c < k; c++) {
                counts[c] += threadCounts[t][c];
            }
        }
        try {
            mesh.allReduce(sums);
            mesh.allReduce(counts);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        double moved = 0;
        for (int c = 0; c < k; c++) {
            if (counts[c] > 0) {
                for (int d = 0; d < dims; d++) {
                    double next = sums[c * dims + d] / counts[c];
                    moved = Math.max(moved, Math.abs(next - centroids[c * dims + d]));
                    centroids[c * dims + d] = next;
                }
            }
        }
        change = moved;
        clock.lap();
    }

    /** One thread's part of this rank's points. */
    final class Worker extends Lockstep.Part {
        Worker(int index) {
            super(index, Share.even(0, points.length / dims, args.threads()), args);
        }

        @Override
        protected void iteration(int iteration) throws InterruptedException, BrokenBarrierException {
            assign(iteration);
            awaitReduce(iteration);
        }

        /** The body (Alg. 7 lines 6–10): nearest centroid of each point, summed per cluster. */
        void assign(int iteration) {
            passes(this::pass);
        }

        /** The barrier (Alg. 7 line 11): every thread of every rank waits here for the all-reduce. */
        void awaitReduce(int iteration) throws InterruptedException, BrokenBarrierException {
            barrier.await();
        }

        private void pass(int first, int end) {
            double[] sums = threadSums[index];
            long[] counts = threadCounts[index];
            Arrays.fill(sums, 0);
            Arrays.fill(counts, 0);
            for (int p = first; p < end; p++) {
                int at = p * dims;
                int best = nearest(at);
                counts[best]++;
                for (int d = 0; d < dims; d++) {
                    sums[best * dims + d] += points[at + d];
                }
            }
            threadWork[index] += end - first;
        }

        private int nearest(int at) {
            int best = 0;
            double bestDistance = Double.MAX_VALUE;
            for (int c = 0; c < k; c++) {
                double distance = distance(points, at, centroids, c * dims);
                if (distance < bestDistance) {
                    bestDistance = distance;
                    best = c;
                }
            }
            return best;
        }
    }
}
