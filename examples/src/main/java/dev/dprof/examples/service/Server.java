package dev.dprof.examples.service;

import dev.dprof.examples.net.Link;
import dev.dprof.examples.net.Message;
import dev.dprof.examples.net.StreamLink;
import dev.dprof.examples.worker.Args;
import dev.dprof.examples.worker.Outcome;
import dev.dprof.examples.worker.Passes;
import dev.dprof.examples.worker.Span;
import dev.dprof.examples.worker.SpanClock;
import dev.dprof.examples.worker.Team;
import java.io.EOFException;
import java.io.IOException;
import java.io.StreamCorruptedException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The service's server, a request pipeline as JVM services build them: it accepts one connection
 * per client thread (the number follows from {@code --peers} and {@code --threads}), then each
 * request crosses four stages and three queues —
 * <ol>
 * <li>network: the connection's reader thread receives it and dispatches it onto the work queue;</li>
 * <li>compute: one of {@code --pool} pool threads takes it and computes the answer;</li>
 * <li>sync: the single {@link Journal} thread takes it from its queue and syncs it (a timed wait
 * standing in for a disk flush; the serial bottleneck);</li>
 * <li>reply: only then is it put on its connection's reply queue, whose writer thread sends the answer.</li>
 * </ol>
 * Every handoff between threads is a {@code java.util.concurrent} queue; nothing here tells a
 * profiler about them. The stages shut down in the same order once every client has closed its
 * connection: the readers' end reaches the pool, the pool's the journal, the journal's the writers.
 */
public final class Server {
    private final Args args;
    private final Link[] links;
    private final int pool;
    private final BlockingQueue<Exchange> work = new LinkedBlockingQueue<>();
    private final List<BlockingQueue<Exchange>> replies = new ArrayList<>();
    private final Journal journal;
    private final AtomicInteger readersLeft;
    private final AtomicInteger workersLeft;
    private final long[] answered;
    /** Folds the results of a straggler's extra passes, per pool thread, so the JIT cannot drop them as unused. */
    private final long[] sink;

    private Server(Args args, Link[] links, int pool, Journal journal) {
        this.args = args;
        this.links = links;
        this.pool = pool;
        this.journal = journal;
        for (int c = 0; c < links.length; c++) {
            replies.add(new LinkedBlockingQueue<>());
        }
        this.readersLeft = new AtomicInteger(links.length);
        this.workersLeft = new AtomicInteger(pool);
        this.answered = new long[links.length];
        this.sink = new long[pool];
    }

    /**
     * Requests answered, the journal's syncs (count, their waits summed, its digest) and the span
     * from the start signal to the last stage's end.
     */
    public record Result(long answered, long synced, long syncWaitNanos, long journalDigest, Span span) {
        Outcome outcome() {
            return new Outcome("service", 0, List.of("server answered " + answered + " requests",
                    String.format(Locale.ROOT, "journal synced %d requests, waits %.3f ms in all", synced,
                            syncWaitNanos / 1e6)), span);
        }
    }

    public static Result run(Args args) throws Exception {
        // the options first: a bad one must not leave the clients connected to nobody
        int pool = args.integer("pool");
        if (pool < 1) {
            throw new IllegalArgumentException("--pool must be at least 1");
        }
        Journal journal = new Journal(Math.multiplyExact(args.longValue("sync-us"), 1000L), args.real("sync-speedup"));
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
        try {
            Server server = new Server(args, links, pool, journal);
            SpanClock clock = new SpanClock();
            Team stages = server.start();
            for (Link link : links) {
                link.sendInt(Service.GO);
            }
            clock.begin();
            stages.join();
            Span span = clock.end();
            long total = 0;
            for (long a : server.answered) {
                total += a;
            }
            return new Result(total, journal.synced(), journal.waitedNanos(), journal.digest(), span);
        } finally {
            Link.closeAll(links);
        }
    }

    /**
     * Starts every stage's threads — readers {@code 0..C−1}, writers {@code C..2C−1}, the pool, the
     * journal last — which then wait for requests; the first failure stops them all. The stages'
     * classes are loaded (and woven by a profiler) here, before the clients are told to start, so
     * that the first requests do not wait for it.
     */
    private Team start() {
        int c = links.length;
        Reader[] readers = new Reader[c];
        Writer[] writers = new Writer[c];
        for (int i = 0; i < c; i++) {
            readers[i] = new Reader(i);
            writers[i] = new Writer(i);
        }
        Worker[] workers = new Worker[pool];
        for (int w = 0; w < pool; w++) {
            workers[w] = new Worker(w);
        }
        return Team.start(t -> t < c ? "reader-" + t : t < 2 * c ? "writer-" + (t - c) : t < 2 * c + pool
                ? "compute-" + (t - 2 * c) : "journal", 2 * c + pool + 1, t -> {
                    if (t < c) {
                        readers[t].serve();
                    } else if (t < 2 * c) {
                        writers[t - c].serve();
                    } else if (t < 2 * c + pool) {
                        workers[t - 2 * c].serve();
                    } else {
                        journal.run(e -> replies.get(e.connection).put(e));
                        for (BlockingQueue<Exchange> r : replies) {
                            r.put(Exchange.end());
                        }
                    }
                }, () -> Link.closeAll(links));
    }

    /** The network stage of one connection: receives requests and dispatches them to the pool. */
    final class Reader {
        private final int index;
        private final Link link;
        private final Message request = new Message(Service.REQUEST);
        private final long[] fields = new long[3];

        Reader(int index) {
            this.index = index;
            this.link = links[index];
        }

        void serve() throws IOException, InterruptedException {
            while (true) {
                try {
                    link.receive(request);
                } catch (EOFException closed) {
                    // a client closes its connection after its last answer: nothing of it is in flight
                    break;
                }
                dispatch(request);
            }
            if (readersLeft.decrementAndGet() == 0) {
                for (int w = 0; w < pool; w++) {
                    work.put(Exchange.end());
                }
            }
        }

        /**
         * The dispatch region: checks {@code request}, decodes it and puts it on the pool's work
         * queue. Its third field is the work factor a straggling client asks for (a double's bits).
         */
        void dispatch(Message request) throws StreamCorruptedException, InterruptedException {
            if (request.channel != Service.REQUEST || request.count(Long.BYTES) != fields.length) {
                throw new StreamCorruptedException("not a request: " + request);
            }
            request.getLongs(fields, 0);
            work.put(new Exchange(index, request.seq, fields[0], fields[1], Double.longBitsToDouble(fields[2])));
        }
    }

    /** A pool thread: computes answers and queues them for the journal. */
    final class Worker {
        private final int index;

        Worker(int index) {
            this.index = index;
        }

        void serve() throws InterruptedException {
            while (true) {
                Exchange e = work.take();
                if (e.isEnd()) {
                    break;
                }
                compute(e);
                journal.append(e);
            }
            if (workersLeft.decrementAndGet() == 0) {
                journal.append(Exchange.end());
            }
        }

        /**
         * The compute region: the answer to {@code e}, a hash chain of its rounds from its key, done
         * as many times as the work factor says (a straggler's), the last time a whole one.
         */
        void compute(Exchange e) {
            Passes passes = Passes.of(e.factor * args.factor());
            long partial = Math.round(e.rounds * passes.fraction());
            if (partial > 0) {
                sink[index] ^= Kernel.hash(e.key, partial);
            }
            long result = 0;
            for (int p = 0; p < passes.whole(); p++) {
                sink[index] ^= result;
                result = Kernel.hash(e.key, e.rounds);
            }
            e.answer = result;
        }
    }

    /** The reply stage of one connection: sends each synced answer back. */
    final class Writer {
        private final int index;
        private final Link link;
        private final BlockingQueue<Exchange> queue;
        private final Message response = new Message(Service.RESPONSE);
        private final long[] answer = new long[1];

        Writer(int index) {
            this.index = index;
            this.link = links[index];
            this.queue = replies.get(index);
        }

        void serve() throws IOException, InterruptedException {
            while (true) {
                Exchange e = queue.take();
                if (e.isEnd()) {
                    return;
                }
                reply(e);
                answered[index]++;
            }
        }

        /** The reply region: sends {@code e}'s answer with its request's id. */
        void reply(Exchange e) throws IOException {
            answer[0] = e.answer;
            response.channel = Service.RESPONSE;
            response.seq = e.seq;
            response.putLongs(answer, 0, 1);
            link.send(response);
        }
    }
}
