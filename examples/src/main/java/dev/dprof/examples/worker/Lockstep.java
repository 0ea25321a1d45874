package dev.dprof.examples.worker;

import dev.dprof.examples.net.Mesh;
import java.util.Arrays;
import java.util.function.IntFunction;

/**
 * The loop the iterative examples share (K-Means, PageRank, connected components), the shape of
 * the DProf paper's Alg. 7: every thread of every rank runs the same iterations, each its body over
 * its {@link Part} of the rank's data, then a barrier that the process's last thread to arrive
 * completes by exchanging with the other ranks. An example writes its threads' parts, each with its
 * body and barrier as the methods its YAML names; {@link #run} runs them and times their iterations.
 */
public final class Lockstep {
    private Lockstep() {
    }

    /**
     * One thread's part of its rank's index range {@code [from, to)} and its iterations: an example's
     * {@code Worker} extends it with its body and barrier methods.
     */
    public abstract static class Part {
        /** The thread's index within its rank. */
        protected final int index;
        /** The thread's part, {@code [from, to)}, of its rank's index range. */
        protected final int from;
        protected final int to;
        private final Passes passes;

        /** The part between {@code bounds[index]} and {@code bounds[index + 1]}, done {@link Args#factor} times. */
        protected Part(int index, int[] bounds, Args args) {
            this.index = index;
            this.from = bounds[index];
            this.to = bounds[index + 1];
            this.passes = Passes.of(args.factor());
        }

        /** One iteration: the body, then the barrier. */
        protected abstract void iteration(int iteration) throws Exception;

        /** Whether the run is over before {@code --iterations} (a fixed point reached); asked before each iteration. */
        protected boolean done() {
            return false;
        }

        /** Runs {@code pass} over this part as a straggler must: {@link Passes}, the last pass a whole one. */
        protected final void passes(Passes.Pass pass) {
            passes.run(from, to, pass);
        }
    }

    /**
     * Runs one rank's threads: builds every thread's part first (before the span, which measures the
     * iterations, not the loading of their classes), waits for every rank ({@link Mesh#barrier}),
     * then runs the iterations in threads named {@code app-i} and returns their span. A failing thread
     * closes the mesh, so that the others, blocked in a barrier or a socket, fail too.
     */
    public static Span run(String app, Args args, Mesh mesh, SpanClock clock, IntFunction<Part> parts) throws Exception {
        Part[] threads = new Part[args.threads()];
        Arrays.setAll(threads, parts);
        mesh.barrier();
        clock.begin();
        Team.run(app, args.threads(), t -> iterate(threads[t], args.iterations()), mesh::close);
        return clock.end();
    }

    private static void iterate(Part part, int iterations) throws Exception {
        for (int iteration = 0; iteration < iterations && !part.done(); iteration++) {
            part.iteration(iteration);
        }
    }
}
