package dev.dprof.examples.cc;

import dev.dprof.examples.graph.Csr;
import dev.dprof.examples.graph.Partitioned;
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
import java.util.Map;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;

/**
 * Connected components by label propagation over N worker processes with T threads each, on the
 * same seeded R-MAT graph as PageRank taken as undirected. Every vertex starts with its own id as
 * label; each iteration every vertex takes the smallest label among itself and its neighbours, so
 * in the end each vertex carries the smallest id of its component. Rank r owns a range of vertices
 * with about a 1/N share of the edges ({@link Partitioned}). Each iteration every thread computes the new labels of its
 * part of the rank's vertices ({@link Worker#propagate}, the body region), then waits in
 * {@link Worker#awaitExchange} (the barrier region, keyed by the iteration, N×T participants)
 * while the last thread of the process exchanges the owned labels with every other rank
 * ({@link Mesh#allGather} over the NIO links) and all-reduces the number of labels that changed
 * ({@link Mesh#allReduce}). The run stops after the first iteration in which no label changed,
 * or after {@code --iterations}. The threads' loop is {@link Lockstep}'s, as in the K-Means and
 * PageRank examples.
 *
 * <p>Straggler: with {@code --straggler R --imbalance X} every thread of rank R computes its
 * vertices X times (see {@link Passes}); the labels do not change.
 *
 * <p>No dprof code here: the regions are picked by {@code examples/cc/dprof.yaml}.
 *
 * <h2>How to run this</h2>
 * <pre>
 * mvn -B -q install -DskipTests -pl examples
 * java -cp examples/target/dprof-examples.jar dev.dprof.examples.Cluster cc \
 *      --workers 4 --threads 2 --straggler 1 --imbalance 2 \
 *      --jvm-arg -javaagent:$(./dprof agent-jar)=config=examples/cc/dprof.yaml
 * </pre>
 * Options (defaults): {@code --scale 21} (2^21 vertices), {@code --edge-factor 12},
 * {@code --iterations 50} (an upper bound; the run stops once stable), {@code --threads 2},
 * {@code --seed 42}, {@code --straggler -1}, {@code --imbalance 1}. Prints the iterations run,
 * the number of components and {@code cc: rank R span S s}.
 */
public final class ConnectedComponents {
    static final Map<String, String> DEFAULTS = Args.defaults(Map.of(
            "scale", "21", "edge-factor", "12", "iterations", "50"));
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(60);

    private final Args args;
    private final Mesh mesh;
    private final int n;
    private final int[] bounds;
    private final int lo;
    private final int hi;
    private final Csr adjacency;
    private final int[] threadBounds;
    private final long[] threadChanges;
    private final long[] threadWork;
    private final CyclicBarrier barrier;
    /** Every vertex's label as of the last exchange; read by the body, replaced by the barrier. */
    private int[] labels;
    /** The body's output for the owned vertices; the exchange fills in the rest. */
    private int[] next;
    private volatile boolean stable;
    private int iterationsRun;

    private ConnectedComponents(Args args, Mesh mesh) throws IOException {
        this.args = args;
        this.mesh = mesh;
        Partitioned graph = Partitioned.load(mesh, args.integer("scale"), args.integer("edge-factor"),
                args.seed(), true);
        this.n = graph.vertices();
        this.bounds = graph.bounds();
        this.lo = graph.lo(mesh.rank());
        this.hi = graph.hi(mesh.rank());
        this.adjacency = graph.incoming();
        int[] weight = graph.weight();
        this.threadBounds = Share.byWeight(lo, hi, args.threads(), v -> weight[v]);
        this.threadChanges = new long[args.threads()];
        this.threadWork = new long[args.threads()];
        this.barrier = new CyclicBarrier(args.threads(), this::exchange);
        this.labels = new int[n];
        for (int v = 0; v < n; v++) {
            labels[v] = v;
        }
        this.next = labels.clone();
    }

    public static void main(String[] argv) {
        Main.run("cc", argv, DEFAULTS, args -> run(args).outcome());
    }

    /** Every vertex's label, the iterations run, this rank's edge visits and its span. */
    public record Result(int rank, int[] labels, int iterations, boolean stable, long work, Span span) {
        Outcome outcome() {
            long components = 0;
            for (int v = 0; v < labels.length; v++) {
                if (labels[v] == v) {
                    components++;
                }
            }
            return new Outcome("cc", rank, List.of(iterations + " iterations, " + (stable ? "stable" : "NOT stable")
                    + ", " + components + " components, " + work + " edge visits"), span);
        }
    }

    /** Runs one rank to the end. */
    public static Result run(Args args) throws Exception {
        try (Mesh mesh = Mesh.connect(args.rank(), args.peers(), CONNECT_TIMEOUT)) {
            ConnectedComponents cc = new ConnectedComponents(args, mesh);
            Span span = Lockstep.run("cc", args, mesh, new SpanClock(), t -> cc.new Worker(t));
            return new Result(args.rank(), cc.labels, cc.iterationsRun, cc.stable,
                    Arrays.stream(cc.threadWork).sum(), span);
        }
    }

    /**
     * The barrier action, run by the last thread to arrive: gather every rank's new labels, make
     * them current, and find out whether any label changed anywhere.
     */
    private void exchange() {
        long[] changes = {Arrays.stream(threadChanges).sum()};
        try {
            mesh.allGather(next, bounds);
            mesh.allReduce(changes);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        int[] previous = labels;
        labels = next;
        next = previous;
        iterationsRun++;
        stable = changes[0] == 0;
    }

    /** One thread's part of this rank's vertices. */
    final class Worker extends Lockstep.Part {
        Worker(int index) {
            super(index, threadBounds, args);
        }

        @Override
        protected void iteration(int iteration) throws InterruptedException, BrokenBarrierException {
            propagate(iteration);
            awaitExchange(iteration);
        }

        /** Once no label changed anywhere, every further iteration would change none either. */
        @Override
        protected boolean done() {
            return stable;
        }

        /** The body: each vertex takes the smallest label around it. */
        void propagate(int iteration) {
            // The last pass is a whole one, so its count of changes is the one kept.
            passes((first, end) -> threadChanges[index] = pass(first, end));
        }

        /** The barrier: every thread of every rank waits here until the labels are exchanged. */
        void awaitExchange(int iteration) throws InterruptedException, BrokenBarrierException {
            barrier.await();
        }

        private long pass(int first, int end) {
            int[] current = labels;
            int[] out = next;
            int[] start = adjacency.start();
            int[] adjacent = adjacency.adjacent();
            long changed = 0;
            for (int v = first; v < end; v++) {
                int label = current[v];
                for (int e = start[v - lo]; e < start[v - lo + 1]; e++) {
                    label = Math.min(label, current[adjacent[e]]);
                }
                out[v] = label;
                if (label != current[v]) {
                    changed++;
                }
            }
            threadWork[index] += adjacency.edges(first, end);
            return changed;
        }
    }
}
