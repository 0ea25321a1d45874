package dev.dprof.examples.service;

import dev.dprof.examples.net.Link;
import dev.dprof.examples.net.Message;
import dev.dprof.examples.net.StreamLink;
import dev.dprof.examples.worker.Args;
import dev.dprof.examples.worker.Outcome;
import dev.dprof.examples.worker.Span;
import dev.dprof.examples.worker.SpanClock;
import dev.dprof.examples.worker.Passes;
import dev.dprof.examples.worker.Team;
import java.io.EOFException;
import java.io.IOException;
import java.io.StreamCorruptedException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.List;

/**
 * The service's server: accepts one connection per client thread (the number follows from
 * {@code --peers} and {@code --threads}), then serves each in a handler thread of its own until
 * the client closes it.
 */
public final class Server {
    private final Args args;
    private final Link[] links;
    private final long[] answered;
    /** Folds the results of a straggler's extra passes, so the JIT cannot drop them as unused. */
    private final long[] sink;

    private Server(Args args, Link[] links) {
        this.args = args;
        this.links = links;
        this.answered = new long[links.length];
        this.sink = new long[links.length];
    }

    /** Requests answered and the span from the start signal to the last connection's end. */
    public record Result(long answered, Span span) {
        Outcome outcome() {
            return new Outcome("service", 0, List.of("server answered " + answered + " requests"), span);
        }
    }

    public static Result run(Args args) throws Exception {
        int clients = (args.peers().size() - 1) * args.threads();
        InetSocketAddress self = args.peers().get(0);
        Link[] links = new Link[clients];
        try (ServerSocket listener = new ServerSocket()) {
            listener.setReuseAddress(true);
            listener.bind(self, clients);
            listener.setSoTimeout((int) Service.CONNECT_TIMEOUT.toMillis());
            for (int c = 0; c < clients; c++) {
                links[c] = new StreamLink(listener.accept());
            }
        } catch (IOException e) {
            Link.closeAll(links);
            throw new IOException("server on " + self + ": " + e.getMessage(), e);
        }
        Server server = new Server(args, links);
        try {
            for (Link link : links) {
                link.sendInt(Service.GO);
            }
            SpanClock clock = new SpanClock();
            clock.begin();
            Team.run("handler", clients, c -> server.new Handler(c).serve(), () -> Link.closeAll(links));
            Span span = clock.end();
            long total = 0;
            for (long a : server.answered) {
                total += a;
            }
            return new Result(total, span);
        } finally {
            Link.closeAll(links);
        }
    }

    /** Serves one connection. */
    final class Handler {
        private final int index;
        private final Link link;
        private final Message request = new Message(Service.REQUEST);
        private final Message response = new Message(Service.RESPONSE);
        private final long[] fields = new long[3];
        private final long[] answer = new long[1];

        Handler(int index) {
            this.index = index;
            this.link = links[index];
        }

        void serve() throws IOException {
            while (true) {
                try {
                    link.receive(request);
                } catch (EOFException closed) {
                    return;
                }
                handle(request, response);
                link.send(response);
                answered[index]++;
            }
        }

        /**
         * The handler region: computes the answer to {@code request} into {@code response}, which
         * keeps the request's id as its seq. The request's third field is the work factor a
         * straggling client asks for (a double's bits).
         */
        void handle(Message request, Message response) throws StreamCorruptedException {
            if (request.channel != Service.REQUEST || request.count(Long.BYTES) != fields.length) {
                throw new StreamCorruptedException("not a request: " + request);
            }
            request.getLongs(fields, 0);
            long key = fields[0];
            long rounds = fields[1];
            Passes passes = Passes.of(Double.longBitsToDouble(fields[2]) * args.factor());
            long partial = Math.round(rounds * passes.fraction());
            if (partial > 0) {
                sink[index] ^= Kernel.hash(key, partial);
            }
            long result = 0;
            for (int p = 0; p < passes.whole(); p++) {
                sink[index] ^= result;
                result = Kernel.hash(key, rounds);
            }
            answer[0] = result;
            response.channel = Service.RESPONSE;
            response.seq = request.seq;
            response.putLongs(answer, 0, 1);
        }
    }
}
