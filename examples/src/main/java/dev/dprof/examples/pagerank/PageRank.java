package dev.dprof.examples.pagerank;

import dev.dprof.examples.graph.Csr;
import dev.dprof.examples.graph.Partitioned;
import dev.dprof.examples.graph.RMat;
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
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;

/**
 * PageRank over N worker processes with T threads each, on a seeded R-MAT graph ({@link RMat})
 * partitioned by vertex ({@link Partitioned}): rank r owns a range of vertices with about a 1/N
 * share of the edges and computes their new ranks by pulling from their in-neighbours. Each iteration every
 * thread computes the new ranks of its part of the rank's vertices ({@link Worker#compute}, the
 * body region), then waits in {@link Worker#awaitExchange} (the barrier region, keyed by the
 * iteration, N×T participants) while the last thread of the process exchanges the rank
 * contributions of the owned vertices with every other rank ({@link Mesh#allGather} over the NIO
 * links) and all-reduces the dangling mass and the L1 change ({@link Mesh#allReduce}). The
 * threads' loop is {@link Lockstep}'s, as in the K-Means and CC examples.
 *
 * <p>Straggler: with {@code --straggler R --imbalance X} every thread of rank R computes its
 * vertices X times (see {@link Passes}); the ranks do not change.
 *
 * <p>No dprof code here: the regions are picked by {@code examples/pagerank/dprof.yaml}.
 *
 * <h2>How to run this</h2>
 * <pre>
 * mvn -B -q install -DskipTests -pl examples
 * java -cp examples/target/dprof-examples.jar dev.dprof.examples.Cluster pagerank \
 *      --workers 4 --threads 2 --straggler 1 --imbalance 2 \
 *      --jvm-arg -javaagent:$(./dprof agent-jar)=config=examples/pagerank/dprof.yaml
 * </pre>
 * Options (defaults): {@code --scale 21} (2^21 vertices), {@code --edge-factor 12} (edges per
 * vertex), {@code --damping 0.85}, {@code --iterations 10}, {@code --threads 2},
 * {@code --seed 42}, {@code --straggler -1}, {@code --imbalance 1}. Prints the sum of the ranks,
 * the last L1 change and {@code pagerank: rank R span S s}.
 */
public final class PageRank {
    static final Map<String, String> DEFAULTS = Args.defaults(Map.of(
            "scale", "21", "edge-factor", "12", "damping", "0.85"));
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(60);

    private final Args args;
    private final Mesh mesh;
    private final int n;
    private final double damping;
    private final int[] bounds;
    private final int lo;
    private final int hi;
    private final Csr incoming;
    private final int[] outDegree;
    private final int[] threadBounds;
    /** rank[u] / outDegree[u] for every vertex (0 for dangling ones), gathered every iteration. */
    private final double[] contribution;
    private final double[] owned;
    private final double[] next;
    private final long[] threadWork;
    private final CyclicBarrier barrier;
    /** (1 − d)/n plus the dangling vertices' mass spread over all vertices. */
    private double base;
    private double change = Double.NaN;

    private PageRank(Args args, Mesh mesh) throws IOException {
        this.args = args;
        this.mesh = mesh;
        this.damping = args.real("damping");
        if (!(damping > 0 && damping < 1)) {
            throw new IllegalArgumentException("--damping must be in (0, 1)");
        }
        Partitioned graph = Partitioned.load(mesh, args.integer("scale"), args.integer("edge-factor"),
                args.seed(), false);
        this.n = graph.vertices();
        this.outDegree = graph.outDegree();
        this.bounds = graph.bounds();
        this.lo = graph.lo(mesh.rank());
        this.hi = graph.hi(mesh.rank());
        this.incoming = graph.incoming();
        int[] weight = graph.weight();
        this.threadBounds = Share.byWeight(lo, hi, args.threads(), v -> weight[v]);
        this.contribution = new double[n];
        this.owned = new double[hi - lo];
        this.next = new double[hi - lo];
        this.threadWork = new long[args.threads()];
        this.barrier = new CyclicBarrier(args.threads(), this::exchange);
        double dangling = 0;
        for (int u = 0; u < n; u++) {
            contribution[u] = outDegree[u] == 0 ? 0 : 1.0 / n / outDegree[u];
            if (outDegree[u] == 0) {
                dangling += 1.0 / n;
            }
        }
        Arrays.fill(owned, 1.0 / n);
        this.base = (1 - damping) / n + damping * dangling / n;
    }

    public static void main(String[] argv) {
        Main.run("pagerank", argv, DEFAULTS, args -> run(args).outcome());
    }

    /** The ranks of all vertices, the last L1 change, this rank's edge visits and its span. */
    public record Result(int rank, double[] ranks, double change, long work, Span span) {
        Outcome outcome() {
            double sum = Arrays.stream(ranks).sum();
            return new Outcome("pagerank", rank, List.of(String.format(Locale.ROOT,
                    "sum of ranks %.9f, last L1 change %.3e, %d edge visits", sum, change, work)), span);
        }
    }

    /** Runs one rank to the end. */
    public static Result run(Args args) throws Exception {
        try (Mesh mesh = Mesh.connect(args.rank(), args.peers(), CONNECT_TIMEOUT)) {
            PageRank pageRank = new PageRank(args, mesh);
            Span span = Lockstep.run("pagerank", args, mesh, new SpanClock(), t -> pageRank.new Worker(t));
            double[] ranks = new double[pageRank.n];
            System.arraycopy(pageRank.owned, 0, ranks, pageRank.lo, pageRank.owned.length);
            mesh.allGather(ranks, pageRank.bounds);
            return new Result(args.rank(), ranks, pageRank.change, Arrays.stream(pageRank.threadWork).sum(),
                    span);
        }
    }

    /**
     * The barrier action, run by the last thread to arrive: adopt the new ranks, share the owned
     * vertices' contributions with every rank, and sum the dangling mass and the change.
     */
    private void exchange() {
        double dangling = 0;
        double l1 = 0;
        for (int v = lo; v < hi; v++) {
            double rank = next[v - lo];
            l1 += Math.abs(rank - owned[v - lo]);
            owned[v - lo] = rank;
            if (outDegree[v] == 0) {
                dangling += rank;
                contribution[v] = 0;
            } else {
                contribution[v] = rank / outDegree[v];
            }
        }
        double[] sums = {dangling, l1};
        try {
            mesh.allGather(contribution, bounds);
            mesh.allReduce(sums);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        base = (1 - damping) / n + damping * sums[0] / n;
        change = sums[1];
    }

    /** One thread's part of this rank's vertices. */
    final class Worker extends Lockstep.Part {
        Worker(int index) {
            super(index, threadBounds, args);
        }

        @Override
        protected void iteration(int iteration) throws InterruptedException, BrokenBarrierException {
            compute(iteration);
            awaitExchange(iteration);
        }

        /** The body: the new rank of each vertex from its in-neighbours' contributions. */
        void compute(int iteration) {
            passes(this::pass);
        }

        /** The barrier: every thread of every rank waits here until the contributions are exchanged. */
        void awaitExchange(int iteration) throws InterruptedException, BrokenBarrierException {
            barrier.await();
        }

        private void pass(int first, int end) {
            int[] start = incoming.start();
            int[] adjacent = incoming.adjacent();
            for (int v = first; v < end; v++) {
                double sum = 0;
                for (int e = start[v - lo]; e < start[v - lo + 1]; e++) {
                    sum += contribution[adjacent[e]];
                }
                next[v - lo] = base + damping * sum;
            }
            threadWork[index] += incoming.edges(first, end);
        }
    }
}
