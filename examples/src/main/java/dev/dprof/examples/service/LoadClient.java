package dev.dprof.examples.service;

import dev.dprof.examples.net.ChannelLink;
import dev.dprof.examples.net.Link;
import dev.dprof.examples.net.Message;
import dev.dprof.examples.worker.Args;
import dev.dprof.examples.worker.Outcome;
import dev.dprof.examples.worker.Span;
import dev.dprof.examples.worker.SpanClock;
import dev.dprof.examples.worker.Team;
import java.io.IOException;
import java.io.StreamCorruptedException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.util.List;
import java.util.SplittableRandom;

/** The service's load generator: T threads, each a closed loop of requests over its own connection. */
public final class LoadClient {
    private static final long RETRY_MILLIS = 50;

    private final Args args;
    private final long[] answered;
    private final long[] wrong;

    private LoadClient(Args args) {
        this.args = args;
        this.answered = new long[args.threads()];
        this.wrong = new long[args.threads()];
    }

    /** Requests answered, answers found wrong (only with --verify true), and the span. */
    public record Result(int rank, long answered, long wrong, Span span) {
        Outcome outcome() {
            return new Outcome("service", rank, List.of("client got " + answered + " answers, " + wrong + " wrong"),
                    span);
        }
    }

    public static Result run(Args args) throws Exception {
        InetSocketAddress server = args.peers().get(0);
        Link[] links = new Link[args.threads()];
        try {
            long deadline = System.nanoTime() + Service.CONNECT_TIMEOUT.toNanos();
            for (int t = 0; t < links.length; t++) {
                links[t] = new ChannelLink(connect(server, deadline));
            }
            // the callers' class is loaded (and woven by a profiler) before the span
            LoadClient client = new LoadClient(args);
            Caller[] callers = new Caller[links.length];
            for (int t = 0; t < links.length; t++) {
                callers[t] = client.new Caller(t, links[t]);
            }
            SpanClock clock = new SpanClock();
            // the server says go once every client thread of every client is connected and its stages run
            for (Link link : links) {
                if (link.receiveInt() != Service.GO) {
                    throw new StreamCorruptedException("the server at " + server + " did not say go");
                }
            }
            clock.begin();
            Team.run("client", links.length, t -> callers[t].run(), () -> Link.closeAll(links));
            Span span = clock.end();
            long answered = 0;
            long wrong = 0;
            for (int t = 0; t < links.length; t++) {
                answered += client.answered[t];
                wrong += client.wrong[t];
            }
            return new Result(args.rank(), answered, wrong, span);
        } finally {
            Link.closeAll(links);
        }
    }

    private static SocketChannel connect(InetSocketAddress server, long deadline) throws IOException {
        while (true) {
            try {
                return SocketChannel.open(server);
            } catch (ConnectException e) {
                // the server starts in its own JVM, at its own pace
                if (System.nanoTime() > deadline) {
                    throw new IOException("no server at " + server + " within " + Service.CONNECT_TIMEOUT, e);
                }
                try {
                    Thread.sleep(RETRY_MILLIS);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted while connecting to " + server, interrupted);
                }
            }
        }
    }

    /** One thread of requests. */
    final class Caller {
        private final int index;
        private final Link link;
        private final Message request = new Message(Service.REQUEST);
        private final Message response = new Message(Service.RESPONSE);
        private final long[] fields = new long[3];
        private final long[] answer = new long[1];
        private final SplittableRandom random;
        private long count;

        Caller(int index, Link link) {
            this.index = index;
            this.link = link;
            this.random = new SplittableRandom(args.seed() * 31 + (long) args.rank() * 1024 + index);
        }

        void run() throws IOException {
            long rounds = args.longValue("rounds");
            boolean verify = args.flag("verify");
            double factor = args.factor();
            for (int iteration = 0; iteration < args.iterations(); iteration++) {
                for (int r = 0; r < args.integer("requests"); r++) {
                    fields[0] = random.nextLong();
                    fields[1] = rounds;
                    fields[2] = Double.doubleToLongBits(factor);
                    request.channel = Service.REQUEST;
                    request.seq = requestId(args.rank(), index, count++);
                    request.putLongs(fields, 0, fields.length);
                    long result = call(request, response);
                    answered[index]++;
                    if (verify && result != Kernel.hash(fields[0], rounds)) {
                        wrong[index]++;
                    }
                }
            }
        }

        /**
         * The request region: sends {@code request} and blocks until its {@code response} (same
         * seq) is back; returns the answer.
         */
        long call(Message request, Message response) throws IOException {
            link.send(request);
            response.channel = Service.RESPONSE;
            link.receive(response);
            if (response.channel != Service.RESPONSE || response.seq != request.seq
                    || response.count(Long.BYTES) != 1) {
                throw new StreamCorruptedException("answer " + response + " does not match " + request);
            }
            response.getLongs(answer, 0);
            return answer[0];
        }
    }

    /** A request id unique across the whole run: client rank, thread, then a counter. */
    static long requestId(int rank, int thread, long count) {
        return (long) rank << 48 | (long) thread << 32 | count;
    }
}
