package dev.dprof.examples.service;

import dev.dprof.examples.worker.Args;
import dev.dprof.examples.worker.Main;
import java.time.Duration;
import java.util.Map;

/**
 * A small request/response service and its load generator, as N processes: rank 0 is the server
 * ({@link Server}), ranks 1..N−1 are clients ({@link LoadClient}), each with T threads, each
 * thread a closed loop of requests over its own connection. A request asks for a hash chain of
 * {@code --rounds} steps from a key ({@link Kernel}). Inside the server each request crosses a
 * pipeline of threads joined by {@code java.util.concurrent} queues: the connection's reader
 * dispatches it ({@link Server.Reader#dispatch}), a pool thread computes the answer
 * ({@link Server.Worker#compute}), the single journal thread syncs it ({@link Journal#sync}, a
 * fixed wait standing in for a disk flush: the serial bottleneck), and only then the connection's
 * writer sends the answer ({@link Server.Writer#reply}). The client's threads issue requests in
 * {@link LoadClient.Caller#call}. Requests travel as {@link dev.dprof.examples.net.Message}s with
 * the request id as their {@code seq}: on channel {@link #REQUEST} to the server, back on channel
 * {@link #RESPONSE} with the same id. Clients connect over NIO {@code SocketChannel}s, the server
 * answers over {@code java.net.Socket} streams, so both transports are exercised on every request.
 *
 * <p>A run is a fixed number of requests: {@code --requests} per client thread and iteration; the
 * clients start together, once the server has all connections and its stages run. The switch
 * {@code --sync-speedup c} removes the fraction {@code c} of every sync's wait, which shortens
 * the run since the journal is the bottleneck ({@code dprof demo --app service} checks dCOZ's
 * prediction of that against the measured spans). Straggler: {@code --straggler R --imbalance X}
 * makes every request of client R ask the server to compute its answer X times (with R = 0, the
 * server does so for every request); the answers do not change.
 *
 * <p>No dprof code here: the regions are picked by {@code examples/service/dprof.yaml}, and the
 * handoffs between the server's threads are the queues' own.
 *
 * <h2>How to run this</h2>
 * <pre>
 * mvn -B -q install -DskipTests -pl examples
 * java -cp examples/target/dprof-examples.jar dev.dprof.examples.Cluster service \
 *      --workers 4 --threads 2 \
 *      --jvm-arg -javaagent:$(./dprof agent-jar)=config=examples/service/dprof.yaml
 * </pre>
 * Options (defaults): {@code --requests 40} per thread and iteration, {@code --iterations 1},
 * {@code --rounds 50000} hash steps per request, {@code --pool 2} compute threads,
 * {@code --sync-us 20000} each sync's wait in microseconds, {@code --sync-speedup 0} the fraction
 * of it removed (in [0, 1)), {@code --verify false} (clients recompute every answer when true),
 * {@code --threads 2} (connections per client), {@code --seed 42}, {@code --straggler -1},
 * {@code --imbalance 1}. Every process prints {@code service: rank R span S s}.
 */
public final class Service {
    /** Requests, client to server. */
    public static final int REQUEST = 1;
    /** Responses, server to client, with the request's seq. */
    public static final int RESPONSE = 2;
    static final Map<String, String> DEFAULTS = Args.defaults(Map.of(
            "requests", "40", "iterations", "1", "rounds", "50000", "pool", "2", "sync-us", "20000",
            "sync-speedup", "0", "verify", "false"));
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(60);
    /** The server's word to start: it has accepted every client's connections. */
    static final int GO = 0x60;

    private Service() {
    }

    public static void main(String[] argv) {
        Main.run("service", argv, DEFAULTS, args -> args.rank() == 0
                ? Server.run(args).outcome() : LoadClient.run(args).outcome());
    }
}
