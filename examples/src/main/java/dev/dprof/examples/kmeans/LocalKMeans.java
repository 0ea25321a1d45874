package dev.dprof.examples.kmeans;

import java.util.SplittableRandom;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;

/**
 * K-Means with T threads in one JVM (the shape of DProf's Alg. 7 without the network): each
 * iteration every thread assigns its share of the points to the nearest centroid
 * ({@link Worker#assign}, the body region), then waits until all threads are done and the new
 * centroids are computed ({@link Worker#awaitCentroids}, the barrier region). One thread can be
 * given {@code imbalance} times its share of work: the straggler.
 *
 * <p>No dprof code here: the regions are picked by {@code examples/kmeans/dprof.yaml}.
 *
 * <h2>How to run this</h2>
 * <pre>
 * java -javaagent:$(./dprof agent-jar)=config=examples/kmeans/dprof.yaml \
 *      -cp examples/target/dprof-examples.jar dev.dprof.examples.kmeans.LocalKMeans \
 *      --threads 4 --points 200000 --k 8 --iterations 20 --straggler 1 --imbalance 2
 * ./dprof stats dprof-runs
 * </pre>
 */
public final class LocalKMeans {
    private static final int DIMENSIONS = 4;

    private final double[][] points;
    private final double[][] centroids;
    private final double[][][] partialSums;
    private final long[][] partialCounts;
    private final CyclicBarrier barrier;
    private final Settings settings;

    /** Command-line settings; every one has a default. */
    record Settings(int threads, int points, int k, int iterations, long seed, int straggler, double imbalance) {
        static Settings parse(String[] args) {
            int threads = 4;
            int points = 200_000;
            int k = 8;
            int iterations = 20;
            long seed = 42;
            int straggler = -1;
            double imbalance = 1;
            for (int i = 0; i + 1 < args.length; i += 2) {
                String v = args[i + 1];
                switch (args[i]) {
                    case "--threads" -> threads = Integer.parseInt(v);
                    case "--points" -> points = Integer.parseInt(v);
                    case "--k" -> k = Integer.parseInt(v);
                    case "--iterations" -> iterations = Integer.parseInt(v);
                    case "--seed" -> seed = Long.parseLong(v);
                    case "--straggler" -> straggler = Integer.parseInt(v);
                    case "--imbalance" -> imbalance = Double.parseDouble(v);
                    default -> throw new IllegalArgumentException("unknown option " + args[i]);
                }
            }
            if (args.length % 2 != 0) {
                throw new IllegalArgumentException("option " + args[args.length - 1] + " needs a value");
            }
            return new Settings(threads, points, k, iterations, seed, straggler, imbalance);
        }
    }

    LocalKMeans(Settings settings) {
        this.settings = settings;
        SplittableRandom random = new SplittableRandom(settings.seed);
        points = new double[settings.points][DIMENSIONS];
        for (double[] p : points) {
            int cluster = random.nextInt(settings.k);
            for (int d = 0; d < DIMENSIONS; d++) {
                p[d] = cluster * 10 + random.nextGaussian();
            }
        }
        centroids = new double[settings.k][];
        for (int c = 0; c < settings.k; c++) {
            centroids[c] = points[random.nextInt(points.length)].clone();
        }
        partialSums = new double[settings.threads][settings.k][DIMENSIONS];
        partialCounts = new long[settings.threads][settings.k];
        barrier = new CyclicBarrier(settings.threads, this::updateCentroids);
    }

    public static void main(String[] args) throws InterruptedException {
        Settings settings = Settings.parse(args);
        LocalKMeans kmeans = new LocalKMeans(settings);
        long start = System.nanoTime();
        Thread[] threads = new Thread[settings.threads];
        for (int t = 0; t < threads.length; t++) {
            Worker worker = kmeans.new Worker(t);
            threads[t] = new Thread(worker::run, "kmeans-" + t);
            threads[t].start();
        }
        for (Thread t : threads) {
            t.join();
        }
        System.out.printf("kmeans: %d iterations, %d threads, %.3f s%n", settings.iterations, settings.threads,
                (System.nanoTime() - start) / 1e9);
    }

    private void updateCentroids() {
        for (int c = 0; c < centroids.length; c++) {
            long count = 0;
            double[] sum = new double[DIMENSIONS];
            for (int t = 0; t < partialSums.length; t++) {
                count += partialCounts[t][c];
                for (int d = 0; d < DIMENSIONS; d++) {
                    sum[d] += partialSums[t][c][d];
                }
            }
            if (count > 0) {
                for (int d = 0; d < DIMENSIONS; d++) {
                    centroids[c][d] = sum[d] / count;
                }
            }
        }
    }

    /** One thread's share of the work. */
    final class Worker {
        private final int index;
        private final int from;
        private final int to;
        private final int repeats;

        Worker(int index) {
            this.index = index;
            int share = points.length / settings.threads;
            this.from = index * share;
            this.to = index == settings.threads - 1 ? points.length : from + share;
            this.repeats = index == settings.straggler ? (int) Math.round(settings.imbalance) : 1;
        }

        void run() {
            try {
                for (int iteration = 0; iteration < settings.iterations; iteration++) {
                    assign(iteration);
                    awaitCentroids(iteration);
                }
            } catch (InterruptedException | BrokenBarrierException e) {
                Thread.currentThread().interrupt();
            }
        }

        /** The body: nearest centroid for each point of this thread's share (repeated by a straggler). */
        void assign(int iteration) {
            double[][] sums = partialSums[index];
            long[] counts = partialCounts[index];
            for (int r = 0; r < repeats; r++) {
                for (double[] s : sums) {
                    java.util.Arrays.fill(s, 0);
                }
                java.util.Arrays.fill(counts, 0);
                for (int i = from; i < to; i++) {
                    int best = nearest(points[i]);
                    counts[best]++;
                    for (int d = 0; d < DIMENSIONS; d++) {
                        sums[best][d] += points[i][d];
                    }
                }
            }
        }

        /** The barrier: wait for every thread and the centroid update. */
        void awaitCentroids(int iteration) throws InterruptedException, BrokenBarrierException {
            barrier.await();
        }

        private int nearest(double[] p) {
            int best = 0;
            double bestDistance = Double.MAX_VALUE;
            for (int c = 0; c < centroids.length; c++) {
                double distance = 0;
                for (int d = 0; d < DIMENSIONS; d++) {
                    double diff = p[d] - centroids[c][d];
                    distance += diff * diff;
                }
                if (distance < bestDistance) {
                    bestDistance = distance;
                    best = c;
                }
            }
            return best;
        }
    }
}
