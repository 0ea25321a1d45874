package dev.dprof.examples;

import dev.dprof.examples.worker.Args;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionService;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

/** Runs N ranks of an example as threads of the test's JVM, each with its own sockets. */
public final class InProcess {
    /** One rank's run. */
    @FunctionalInterface
    public interface Job<R> {
        R run(Args args) throws Exception;
    }

    private InProcess() {
    }

    /**
     * Runs {@code ranks} ranks with {@code options} (plus --rank and --peers) and returns their
     * results by rank. The first rank to fail has its failure thrown at once: the others would only
     * wait for it until their rendezvous timed out, and hide why.
     */
    public static <R> List<R> run(int ranks, Map<String, String> defaults, Job<R> job, String... options)
            throws Exception {
        String peers = Cluster.freePorts(ranks, "127.0.0.1").stream().map(p -> "127.0.0.1:" + p)
                .collect(Collectors.joining(","));
        ExecutorService pool = Executors.newFixedThreadPool(ranks);
        try {
            CompletionService<R> done = new ExecutorCompletionService<>(pool);
            List<Future<R>> futures = new ArrayList<>();
            for (int rank = 0; rank < ranks; rank++) {
                List<String> argv = new ArrayList<>(List.of(options));
                argv.addAll(List.of("--rank", Integer.toString(rank), "--peers", peers));
                Args args = Args.parse(argv.toArray(String[]::new), defaults);
                futures.add(done.submit(() -> job.run(args)));
            }
            for (int finished = 0; finished < ranks; finished++) {
                Future<R> f = done.poll(120, TimeUnit.SECONDS);
                if (f == null) {
                    throw new TimeoutException(ranks - finished + " of " + ranks + " ranks still running after 120 s");
                }
                try {
                    f.get();
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof Exception cause) {
                        throw cause;
                    }
                    throw e;
                }
            }
            List<R> results = new ArrayList<>();
            for (Future<R> f : futures) {
                results.add(f.get());
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }
}
