package dev.dprof.synthetic;

import dev.dprof.clock.ClockDomain;
import dev.dprof.clock.ClockSource;
import dev.dprof.clock.SimulatedClock;
import dev.dprof.format.ByteSink;
import dev.dprof.format.CollectiveFlavour;
import dev.dprof.format.CollectiveShape;
import dev.dprof.format.EventBatchBuilder;
import dev.dprof.format.EventBatchEncoder;
import dev.dprof.format.EventBatchReader;
import dev.dprof.format.EventCodes;
import dev.dprof.format.EventKind;
import dev.dprof.format.FormatException;
import dev.dprof.format.HandoffRegions;
import dev.dprof.format.ProcessEnd;
import dev.dprof.format.ProcessHeader;
import dev.dprof.format.RecordType;
import dev.dprof.format.RegionInfo;
import dev.dprof.format.ThreadInfo;
import dev.dprof.format.calibration.CalibrationFile;
import dev.dprof.format.calibration.Zero;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.SplittableRandom;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.queue.rollcycles.LargeRollCycles;
import net.openhft.chronicle.wire.DocumentContext;

/**
 * Writes a synthetic multi-process run to disk the way the agent and the calibrator would: one
 * real Chronicle queue per process ({@code <host>-<pid>-<startMillis>/}: header, drainer thread and
 * probe-cost marker, region table, thread names, per-thread batches interleaved in drain order, end
 * record) and one {@code .cal} file per clock domain (a reference without parent, every process's
 * domain with zeros against it). Every timestamp derives from one real-tick timeline; every process
 * reads it through its own {@link SimulatedClock}, so the truth of every event is known.
 *
 * <h2>Workload (BSP)</h2>
 * Per iteration every worker thread of every process: {@code ENTER body}, inner {@code work}
 * regions (ENTER/EXIT pairs, as many as the events target asks), {@code EXIT body},
 * {@code BARRIER_ENTER barrier (key = iteration, participants = all workers of all processes)};
 * then {@code BARRIER_EXIT} at a common real release time (after the last arrival plus a small
 * latency; each thread wakes within {@value #WAKE_MAX_US} µs of it). One straggler process does more
 * work per body. Cross-process messages: a {@code SEND} stamped inside the sender's body, the
 * {@code RECEIVE} inside the receiver's body at least {@value #MIN_LATENCY_US} µs (real) later; keys
 * are unique. Batches hold what a drainer running every {@code drainMicros} finds, at most
 * {@code maxBatch} events each.
 *
 * <h2>Calibration</h2>
 * Zeros every {@code calibrationEverySeconds} (± a third) of real time from before the first process
 * starts until after the last ends: real moments {@code t1 < ta < t2} with round trips of
 * 20–100 µs, {@code (k1, a, k2) = (node(t1), ref(ta), node(t2))}.
 *
 * <p>Generation streams: memory is bounded by threads × (drain interval + one iteration), not by the
 * number of events, unless {@link Spec#keepTruth} asks for every event to be remembered (tests).
 */
public final class SyntheticRun {
    /** Real ticks per second (the simulated clocks' {@code tsc-hz}). */
    public static final long TSC_HZ = 3_000_000_000L;
    static final long US = TSC_HZ / 1_000_000;
    /** The real tick where the run starts (the zeros begin up to 1.5 s before). */
    public static final long START = 1L << 40;
    static final long MIN_LATENCY_US = 5;
    static final long WAKE_MAX_US = 2;

    public static final int BODY_ID = 1;
    public static final int WORK_ID = 2;
    public static final int BARRIER_ID = 3;
    public static final int SEND_ID = 4;
    public static final int RECEIVE_ID = 5;
    public static final String BODY = "body";
    public static final String WORK = "work";
    public static final String BARRIER = "barrier";
    public static final String SEND = "send";
    public static final String RECEIVE = "receive";
    public static final int QUEUE_ID = 6;
    public static final int THREADS_ID = 7;
    /** The handoff site of {@link Spec#handoffs}' queues and futures (one region, kind handoff). */
    public static final String QUEUE = HandoffRegions.siteName(HandoffRegions.Kind.QUEUE, "ArrayBlockingQueue",
            "Synthetic.<init>:1");
    public static final String THREADS = HandoffRegions.threadsName();
    static final String[] REGION_NAMES = {null, BODY, WORK, BARRIER, SEND, RECEIVE, QUEUE, THREADS};
    /** The first handoff channel of {@link Spec#handoffs}: queues; the next one, futures. */
    static final long QUEUE_CHANNEL = HandoffRegions.FIRST_OBJECT;
    static final long FUTURE_CHANNEL = HandoffRegions.FIRST_OBJECT + 1;
    static final long CHANNEL = 0x5EED;
    static final long DRAINER_THREAD = 15;
    static final long FIRST_WORKER_THREAD = 20;

    /** What to generate; fluent setters, defaults in the field initializers. */
    public static final class Spec {
        int processes = 3;
        int threads = 2;
        int iterations = 20;
        long events = 20_000;
        long seed = 1;
        double driftPpm;
        int straggler = -1;
        double stragglerFactor = 1.6;
        int messagesPerIteration = -1;
        double reusedKeys;
        long bodyMicros = 2_000;
        long minLatencyMicros = MIN_LATENCY_US;
        int latencySpreadMicros = 45;
        int drainMicros = 5_000;
        int maxBatch = 4_096;
        double calibrationEverySeconds = 3;
        boolean truthColumn = true;
        boolean keepTruth;
        Set<Integer> uncalibrated = new HashSet<>();
        java.util.Map<Integer, Integer> zeroLimit = new java.util.HashMap<>();
        int killed = -1;
        double killedAt = 0.5;
        int formatVersion = RecordType.FORMAT_VERSION;
        boolean collectives;
        boolean handoffs;
        boolean communicationFlag = true;

        public static Spec of(int processes, int threads, int iterations, long events, long seed) {
            Spec s = new Spec();
            s.processes = processes;
            s.threads = threads;
            s.iterations = iterations;
            s.events = events;
            s.seed = seed;
            return s;
        }

        /** Sinusoidal drift of this amplitude (ppm) on every clock, periods 300–900 s. */
        public Spec drift(double ppm) {
            driftPpm = ppm;
            return this;
        }

        /** The straggler process (default: chosen by the seed) and how much more work it does. */
        public Spec straggler(int process, double factor) {
            straggler = process;
            stragglerFactor = factor;
            return this;
        }

        /** Messages per iteration (default: one per worker thread). */
        public Spec messages(int perIteration) {
            messagesPerIteration = perIteration;
            return this;
        }

        /**
         * The share of messages that take the key of the message before them, sent up to 60 µs after
         * that message's receive, where the bounds cannot order them: a matcher that paired the
         * earlier receive with this later send would add a false constraint.
         */
        public Spec reusedKeys(double share) {
            reusedKeys = share;
            return this;
        }

        /** Message latencies: at least {@code min} µs of real time, up to {@code spread} µs more. */
        public Spec latencyMicros(long min, int spread) {
            minLatencyMicros = min;
            latencySpreadMicros = spread;
            return this;
        }

        /** The mean real duration of one body, µs. */
        public Spec bodyMicros(long micros) {
            bodyMicros = micros;
            return this;
        }

        public Spec drainMicros(int micros) {
            drainMicros = micros;
            return this;
        }

        public Spec maxBatch(int events) {
            maxBatch = events;
            return this;
        }

        public Spec calibrationEverySeconds(double seconds) {
            calibrationEverySeconds = seconds;
            return this;
        }

        /**
         * Whether batches carry the truth column (a simulated run, as the agent writes it under
         * {@code -Ddprof.clock.sim}). Without it the run looks like one of real machines: ticks are
         * still simulated, but headers and calibration files name no simulated clock and each
         * process's domain gets a boot id of its own.
         */
        public Spec truthColumn(boolean on) {
            truthColumn = on;
            return this;
        }

        /** Remember every written event per thread ({@link ThreadRun#events()}): for tests. */
        public Spec keepTruth(boolean on) {
            keepTruth = on;
            return this;
        }

        /** No {@code .cal} file for this process's domain. */
        public Spec uncalibrated(int process) {
            uncalibrated.add(process);
            return this;
        }

        /** At most this many zeros in the process's {@code .cal} file (0: a file with its header only). */
        public Spec zeros(int process, int atMost) {
            zeroLimit.put(process, atMost);
            return this;
        }

        /** The process is killed (no further batches, no end record) after this share of the iterations. */
        public Spec killed(int process, double atShare) {
            killed = process;
            killedAt = atShare;
            return this;
        }

        /**
         * Iterations end in collectives of every flavour in turn (N-to-N, 1-to-N, N-to-1, scan,
         * exscan; {@link #collectiveOf}) instead of barriers; needs format version 2.
         */
        public Spec collectives(boolean on) {
            collectives = on;
            return this;
        }

        /**
         * Handoffs between the worker threads of each process ({@code threads ≥ 3}): worker 0 starts
         * the others (a {@code Thread.start} put before each one's first event) and joins them at the
         * end (each puts its end, worker 0 takes it); per iteration and process, queue elements put in
         * one worker's body and taken in another's, some put and never taken, some taken without a
         * recorded put, and a future completed once and taken by every other worker.
         */
        public Spec handoffs(boolean on) {
            handoffs = on;
            return this;
        }

        /**
         * Whether batches carry the "no communication" flag; without it they read like batches
         * written before the flag existed.
         */
        public Spec communicationFlag(boolean on) {
            communicationFlag = on;
            return this;
        }

        /**
         * The format version written in every header; below {@link RecordType#MARKED_BATCHES_VERSION}
         * the batches are in that version's layout too (each communicating event in full among the events).
         */
        public Spec formatVersion(int version) {
            formatVersion = version;
            return this;
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "%d processes × %d threads × %d iterations, ~%d events, seed %d%s",
                    processes, threads, iterations, events, seed, driftPpm > 0 ? ", drift " + driftPpm + " ppm" : "");
        }
    }

    /** One event as written: its kind, region name (null for none), the tick on disk and the real tick. */
    public record Expected(EventKind kind, String region, long tick, long real, long a, long b) {
    }

    /** One thread of a process; {@code events} only with {@link Spec#keepTruth}. */
    public record ThreadRun(long threadId, String name, long written, List<Expected> events) {
    }

    /** One process as written. */
    public record ProcessRun(int index, String host, long pid, Path dir, String domainId, SimulatedClock clock,
                             boolean straggler, boolean ended, long eventsWritten, List<ThreadRun> threads) {
    }

    /**
     * Where the run went and what it holds; {@code handoffEdges} and {@code unmatchedTakes} count the
     * handoffs (a take with its put, a started thread's first event with its start) and the takes
     * written without a put.
     */
    public record Result(Path runDir, Path calibrationDir, String referenceDomain, SimulatedClock reference,
                         List<ProcessRun> processes, long events, long messages, int straggler, long firstReal,
                         long lastReal, long handoffEdges, long unmatchedTakes) {
        public ProcessRun process(String host, long pid) {
            return processes.stream().filter(p -> p.host().equals(host) && p.pid() == pid).findFirst().orElseThrow();
        }
    }

    private final Spec spec;
    private final SplittableRandom random;

    private SyntheticRun(Spec spec) {
        this.spec = spec;
        this.random = new SplittableRandom(spec.seed);
    }

    /** Writes the run to {@code root/run} and its calibration to {@code root/calibration}. */
    public static Result generate(Spec spec, Path root) throws IOException {
        return new SyntheticRun(spec).write(root);
    }

    /** A clock with rate 1.23–1.40, a random offset, and the spec's drift. */
    SimulatedClock clock() {
        double rate = 1.23 + random.nextDouble() * 0.17;
        long offset = random.nextLong(1L << 44) - (1L << 43);
        String s = "rate=" + rate + ",offset=" + offset + ",tsc-hz=" + TSC_HZ
                + (spec.driftPpm > 0 ? ",drift-ppm=" + spec.driftPpm + ",drift-period-s=" + (300 + random.nextInt(600)) : "");
        return SimulatedClock.parse(s);
    }

    /** A worker or drainer thread's pending (not yet drained) events, in real-time order. */
    private static final class Pending {
        final long threadId;
        final String name;
        long[] real = new long[1024];
        int[] header = new int[1024];
        long[] a = new long[1024];
        long[] b = new long[1024];
        int start;
        int end;
        boolean named;
        long written;
        long last = Long.MIN_VALUE;
        final List<Expected> kept;

        Pending(long threadId, String name, boolean keep) {
            this.threadId = threadId;
            this.name = name;
            this.kept = keep ? new ArrayList<>() : null;
        }

        void add(long t, int kind, int region, long pa, long pb) {
            if (t < last) {
                throw new IllegalStateException("program order broken in " + name + ": " + t + " < " + last);
            }
            last = t;
            if (end == real.length) {
                if (start > real.length / 2) {
                    int n = end - start;
                    System.arraycopy(real, start, real, 0, n);
                    System.arraycopy(header, start, header, 0, n);
                    System.arraycopy(a, start, a, 0, n);
                    System.arraycopy(b, start, b, 0, n);
                    start = 0;
                    end = n;
                } else {
                    int c = real.length * 2;
                    real = Arrays.copyOf(real, c);
                    header = Arrays.copyOf(header, c);
                    a = Arrays.copyOf(a, c);
                    b = Arrays.copyOf(b, c);
                }
            }
            real[end] = t;
            header[end] = EventCodes.header(kind, region);
            a[end] = pa;
            b[end] = pb;
            end++;
        }

        /** The real tick of the last event added (drained or not). */
        long last() {
            return last;
        }
    }

    /** One process being written. */
    private final class Proc {
        final int index;
        final String host;
        final long pid;
        final long startMillis;
        final Path dir;
        final SimulatedClock clock;
        final String domainId;
        final boolean straggler;
        final long startReal;
        final Pending drainer;
        final List<Pending> workers = new ArrayList<>();
        final SingleChronicleQueue queue;
        final ExcerptAppender appender;
        final ByteSink record = new ByteSink(1 << 16);
        /** For {@link #olderLayout}: a queue of a version before {@link RecordType#MARKED_BATCHES_VERSION}. */
        private final EventBatchReader olderReader = new EventBatchReader();
        private final EventBatchBuilder olderBuilder = new EventBatchBuilder();
        ByteBuffer slots = ByteBuffer.allocate(1024 * EventBatchEncoder.SLOT_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        long nextDrain;
        boolean dead;
        boolean closed;
        long written;
        boolean regionsWritten;

        Proc(int index, Path runDir, long startReal, boolean straggler) {
            this.index = index;
            this.host = "sim" + index;
            this.pid = 4000 + 17L * index + random.nextInt(10);
            this.startMillis = 1_700_000_000_000L + 1000L * index;
            this.dir = runDir.resolve(host + "-" + pid + "-" + startMillis);
            this.clock = clock();
            this.domainId = spec.truthColumn ? ClockDomain.id(ClockSource.RDTSC, Optional.of(clock))
                    : "tsc@synthetic-" + Long.toHexString(spec.seed) + "-" + index;
            this.straggler = straggler;
            this.startReal = startReal;
            this.drainer = new Pending(DRAINER_THREAD, "dprof-drainer", spec.keepTruth);
            for (int t = 0; t < spec.threads; t++) {
                workers.add(new Pending(FIRST_WORKER_THREAD + t, "worker-" + t, spec.keepTruth));
            }
            this.queue = SingleChronicleQueueBuilder.binary(dir).rollCycle(LargeRollCycles.LARGE_DAILY)
                    .blockSize(16L << 20).build();
            this.appender = queue.createAppender();
            this.nextDrain = startReal + random.nextLong(Math.max(1, spec.drainMicros * US));
        }

        void append() {
            if (dead) {
                return;
            }
            try (DocumentContext dc = appender.writingDocument()) {
                dc.wire().bytes().write(record.array(), 0, record.size());
            }
        }

        /** The header, then what the drainer writes before its first drain (as {@code Drainer.writeHeader}). */
        void start() {
            record.clear();
            new ProcessHeader(spec.formatVersion, host, pid, startMillis, clock.apply(startReal), domainId,
                    ClockSource.RDTSC, "synthetic run", clock.rate() * TSC_HZ,
                    spec.truthColumn ? Optional.of(clock) : Optional.empty(), 20 * 1024 + random.nextInt(4096),
                    Runtime.version().toString(), "synthetic", "synthetic.yaml", spec.drainMicros / 1000).encode(record);
            append();
            drainer.add(startReal, EventCodes.PROBE_COST, 0, 20 * 1024, 20);
            drain(drainer, startReal, Integer.MAX_VALUE);
        }

        /** One drain at real time {@code at}: new regions, then every thread's events up to it. */
        void drainAll(long at) {
            if (!regionsWritten) {
                regionsWritten = true;
                for (int id = 1; id < (spec.handoffs ? REGION_NAMES.length : QUEUE_ID); id++) {
                    String kind = switch (id) {
                        case BARRIER_ID -> "barrier";
                        case SEND_ID -> "send";
                        case RECEIVE_ID -> "receive";
                        case QUEUE_ID, THREADS_ID -> HandoffRegions.REGION_KIND;
                        default -> "plain";
                    };
                    record.clear();
                    new RegionInfo(id, REGION_NAMES[id], kind, "api", "Synthetic#" + REGION_NAMES[id] + "()V",
                            OptionalLong.empty()).encode(record);
                    append();
                }
            }
            for (Pending p : workers) {
                drain(p, at, spec.maxBatch);
            }
        }

        /** Rewrites the batch in {@code record} in the layout format versions 1 to 3 wrote (docs/FORMAT.md, "`B` batch"). */
        private void olderLayout() {
            byte[] encoded = record.toByteArray();
            try {
                olderReader.reset(encoded, 1, encoded.length - 1);
                olderBuilder.start(olderReader.threadId(), olderReader);
                while (olderReader.next()) {
                    olderBuilder.add(olderReader);
                }
            } catch (FormatException e) {
                throw new IllegalStateException("the batch just encoded does not read: " + e.getMessage(), e);
            }
            record.clear();
            olderBuilder.encode(record, false);
        }

        void drain(Pending p, long at, int maxBatch) {
            while (p.start < p.end && p.real[p.start] <= at) {
                int n = 0;
                while (p.start + n < p.end && n < maxBatch && p.real[p.start + n] <= at) {
                    n++;
                }
                if (!p.named) {
                    p.named = true;
                    record.clear();
                    new ThreadInfo(p.threadId, p.name).encode(record);
                    append();
                }
                if (slots.capacity() < n * EventBatchEncoder.SLOT_BYTES) {
                    slots = ByteBuffer.allocate(n * EventBatchEncoder.SLOT_BYTES).order(ByteOrder.LITTLE_ENDIAN);
                }
                for (int i = 0; i < n; i++) {
                    int k = p.start + i;
                    int base = i * EventBatchEncoder.SLOT_BYTES;
                    slots.putLong(base, spec.truthColumn ? p.real[k] : clock.apply(p.real[k]));
                    slots.putInt(base + 8, p.header[k]);
                    slots.putInt(base + 12, 0);
                    slots.putLong(base + 16, p.a[k]);
                    slots.putLong(base + 24, p.b[k]);
                }
                record.clear();
                EventBatchEncoder.encode(record, p.threadId, slots, n, spec.truthColumn ? clock : null, false);
                if (spec.formatVersion < RecordType.MARKED_BATCHES_VERSION) {
                    olderLayout();
                }
                if (!spec.communicationFlag) {
                    // after the type byte and the thread id's varint
                    int flags = 1 + (64 - Long.numberOfLeadingZeros(p.threadId | 1) + 6) / 7;
                    record.array()[flags] &= (byte) ~EventBatchEncoder.FLAG_NO_COMMUNICATION;
                }
                append();
                if (!dead) {
                    written += n;
                    p.written += n;
                    if (p.kept != null) {
                        for (int i = 0; i < n; i++) {
                            int k = p.start + i;
                            int region = EventCodes.region(p.header[k]);
                            p.kept.add(new Expected(EventKind.ofCode(EventCodes.kind(p.header[k])),
                                    region < REGION_NAMES.length ? REGION_NAMES[region] : null, clock.apply(p.real[k]),
                                    p.real[k], p.a[k], p.b[k]));
                        }
                    }
                }
                p.start += n;
            }
            if (p.start == p.end) {
                p.start = 0;
                p.end = 0;
            }
        }

        /** Drains every interval up to {@code known} (every event at or before it has been generated). */
        void drainUpTo(long known) {
            while (nextDrain <= known) {
                drainAll(nextDrain);
                nextDrain += spec.drainMicros * US;
            }
        }

        void finish(long endReal) {
            drainAll(Long.MAX_VALUE);
            record.clear();
            new ProcessEnd(clock.apply(endReal), written, 0, "").encode(record);
            append();
            close();
        }

        void close() {
            if (!closed) {
                closed = true;
                appender.close();
                queue.close();
            }
        }

        ProcessRun result() {
            List<ThreadRun> threads = new ArrayList<>();
            threads.add(new ThreadRun(drainer.threadId, drainer.name, drainer.written, drainer.kept));
            for (Pending w : workers) {
                threads.add(new ThreadRun(w.threadId, w.name, w.written, w.kept));
            }
            return new ProcessRun(index, host, pid, dir, domainId, clock, straggler, !dead, written, threads);
        }
    }

    private Result write(Path root) throws IOException {
        Path runDir = Files.createDirectories(root.resolve("run"));
        Path calDir = Files.createDirectories(root.resolve("calibration"));
        int n = spec.processes;
        int straggler = spec.straggler >= 0 ? spec.straggler : random.nextInt(n);
        SimulatedClock reference = clock();
        String referenceDomain = spec.truthColumn ? ClockDomain.id(ClockSource.RDTSC, Optional.of(reference))
                : "tsc@synthetic-" + Long.toHexString(spec.seed) + "-reference";
        List<Proc> procs = new ArrayList<>();
        try {
            for (int p = 0; p < n; p++) {
                procs.add(new Proc(p, runDir, START + random.nextLong(20_000 * US), p == straggler));
            }
            long messages = simulate(procs);
            long firstReal = procs.stream().mapToLong(p -> p.startReal).min().orElseThrow();
            long lastReal = procs.stream().flatMap(p -> p.workers.stream()).mapToLong(Pending::last).max().orElseThrow()
                    + 10 * US;
            for (Proc p : procs) {
                if (!p.dead) {
                    p.finish(lastReal);
                }
            }
            writeCalibration(calDir, reference, referenceDomain, procs, firstReal, lastReal);
            List<ProcessRun> results = procs.stream().map(Proc::result).toList();
            return new Result(runDir, calDir, referenceDomain, reference, results,
                    results.stream().mapToLong(ProcessRun::eventsWritten).sum(), messages, straggler, firstReal, lastReal,
                    handoffEdges, unmatchedTakes);
        } finally {
            procs.forEach(Proc::close);
        }
    }

    /** Generates the iterations and drains them; returns the number of messages sent. */
    private long simulate(List<Proc> procs) {
        int n = procs.size();
        int threads = spec.threads;
        int all = n * threads;
        int messagesPerIteration = spec.messagesPerIteration >= 0 ? spec.messagesPerIteration : (n > 1 ? all : 0);
        long fixedPerBody = 4 + 2L * messagesPerIteration / Math.max(1, all);
        long perBody = spec.events / Math.max(1, (long) all * spec.iterations);
        int pairs = (int) Math.max(0, (perBody - fixedPerBody) / 2);
        long bodyTicks = spec.bodyMicros * US;
        int killIteration = spec.killed >= 0 ? (int) Math.floor(spec.iterations * spec.killedAt) : -1;

        long[] now = new long[all];
        long[] bodyStart = new long[all];
        long[] bodyEnd = new long[all];
        long[] arrive = new long[all];
        List<List<long[]>> mail = new ArrayList<>();
        for (int g = 0; g < all; g++) {
            mail.add(new ArrayList<>());
        }
        for (Proc p : procs) {
            p.start();
            for (int t = 0; t < threads; t++) {
                int g = p.index * threads + t;
                now[g] = p.startReal + (10 + random.nextInt(190)) * US;
                if (spec.handoffs && t > 0) {
                    // worker 0 starts this one: its put, then this thread's first event a latency later
                    Pending starter = p.workers.get(0);
                    long put = starter.last() + (1 + random.nextInt(5)) * US;
                    starter.add(put, EventCodes.HANDOFF_PUT, THREADS_ID, HandoffRegions.THREAD_START,
                            p.workers.get(t).threadId);
                    handoffEdges++;
                    now[g] = put + handoffLatency();
                }
                p.workers.get(t).add(now[g], EventCodes.THREAD_START, 0, 0, 0);
            }
            now[p.index * threads] = p.workers.get(0).last(); // after the starts it made
        }
        long key = 1;
        long messages = 0;
        long lastReceiveAt = 0;
        for (int iteration = 0; iteration < spec.iterations; iteration++) {
            for (int g = 0; g < all; g++) {
                Proc p = procs.get(g / threads);
                double factor = p.straggler ? spec.stragglerFactor : 1.0;
                bodyStart[g] = now[g] + (1 + random.nextInt(5)) * US;
                bodyEnd[g] = bodyStart[g] + Math.max(2L * pairs + 2, (long) (bodyTicks * factor * (0.8 + 0.4 * random.nextDouble())));
                mail.get(g).clear();
            }
            if (spec.handoffs) {
                handoffs(procs, iteration, bodyStart, bodyEnd, mail);
            }
            // Messages: the send inside the sender's body, the receive inside the receiver's, latency ≥ the minimum.
            for (int m = 0; m < messagesPerIteration && n > 1; m++) {
                int s = random.nextInt(all);
                int r = random.nextInt(all - threads);
                if (r >= (s / threads) * threads) {
                    r += threads; // a thread of another process
                }
                long latency = (spec.minLatencyMicros + random.nextInt(spec.latencySpreadMicros + 1)) * US
                        + random.nextInt((int) US);
                long from = Math.max(bodyStart[s], bodyStart[r] - latency) + 1;
                long to = Math.min(bodyEnd[s], bodyEnd[r] - latency) - 1;
                if (from > to) {
                    continue;
                }
                long sendAt = from + random.nextLong(to - from + 1);
                long k = key;
                if (spec.reusedKeys > 0 && lastReceiveAt > 0 && random.nextDouble() < spec.reusedKeys) {
                    // The last message's key again, sent just after that message's receive.
                    long again = lastReceiveAt + 1 + random.nextLong(60 * US);
                    if (again >= from && again <= to) {
                        sendAt = again;
                        k = key - 1;
                    }
                }
                if (k == key) {
                    key++;
                }
                mail.get(s).add(new long[] {sendAt, EventCodes.SEND, SEND_ID, CHANNEL, k});
                mail.get(r).add(new long[] {sendAt + latency, EventCodes.RECEIVE, RECEIVE_ID, CHANNEL, k});
                lastReceiveAt = sendAt + latency;
                messages++;
            }
            long release = Long.MIN_VALUE;
            for (int g = 0; g < all; g++) {
                Pending w = procs.get(g / threads).workers.get(g % threads);
                List<long[]> box = mail.get(g);
                box.sort((x, y) -> Long.compare(x[0], y[0]));
                w.add(bodyStart[g], EventCodes.ENTER, BODY_ID, 0, 0);
                int next = 0;
                long span = bodyEnd[g] - bodyStart[g];
                int slots = 2 * pairs + 1;
                for (int j = 1; j <= 2 * pairs; j++) {
                    long t = bodyStart[g] + (long) (span * (j - 0.4 + 0.8 * random.nextDouble()) / slots);
                    t = Math.max(t, w.last());
                    while (next < box.size() && box.get(next)[0] <= t) {
                        long[] msg = box.get(next++);
                        w.add(msg[0], (int) msg[1], (int) msg[2], msg[3], msg[4]);
                    }
                    w.add(Math.max(t, w.last()), j % 2 == 1 ? EventCodes.ENTER : EventCodes.EXIT, WORK_ID, 0, 0);
                }
                while (next < box.size()) {
                    long[] msg = box.get(next++);
                    w.add(msg[0], (int) msg[1], (int) msg[2], msg[3], msg[4]);
                }
                w.add(Math.max(bodyEnd[g], w.last()), EventCodes.EXIT, BODY_ID, 0, 0);
                arrive[g] = w.last() + (500 + random.nextInt(2500)) * US / 1000;
                w.add(arrive[g], EventCodes.BARRIER_ENTER, BARRIER_ID, iteration, shape(iteration, g, all));
                release = Math.max(release, arrive[g]);
            }
            if (spec.collectives) {
                release = collective(procs, iteration, arrive, now);
            } else {
                release += (2 + random.nextInt(9)) * US;
                for (int g = 0; g < all; g++) {
                    now[g] = release + random.nextLong(WAKE_MAX_US * US + 1);
                    procs.get(g / threads).workers.get(g % threads).add(now[g], EventCodes.BARRIER_EXIT, BARRIER_ID, iteration, all);
                }
            }
            for (Proc p : procs) {
                p.drainUpTo(release);
                if (p.index == spec.killed && iteration == killIteration && !p.dead) {
                    p.dead = true; // kill -9: what the drainer had written stays, nothing more, no end record
                    p.close();
                }
            }
        }
        for (Proc p : procs) {
            long joined = Long.MIN_VALUE;
            for (int t = threads - 1; t >= 0; t--) {
                int g = p.index * threads + t;
                Pending w = p.workers.get(t);
                long end = now[g] + (1 + random.nextInt(20)) * US;
                if (spec.handoffs && t > 0) {
                    // the thread puts its end; worker 0 joins it (below)
                    w.add(end, EventCodes.HANDOFF_PUT, THREADS_ID, HandoffRegions.THREAD_END, w.threadId);
                    joined = Math.max(joined, end + handoffLatency());
                    handoffEdges++;
                } else if (spec.handoffs) {
                    for (int u = 1; u < threads; u++) {
                        joined = Math.max(joined, w.last() + US);
                        w.add(joined, EventCodes.HANDOFF_TAKE, THREADS_ID, HandoffRegions.THREAD_END,
                                p.workers.get(u).threadId);
                    }
                    end = Math.max(end, joined + US);
                }
                w.add(end, EventCodes.THREAD_END, 0, 0, 0);
            }
        }
        return messages;
    }

    private long handoffEdges;
    private long unmatchedTakes;
    /** Keys count per process, so every process uses the same (channel, key) pairs: they must never match across. */
    private final java.util.Map<Integer, long[]> keys = new java.util.HashMap<>();

    /** A handoff's real latency: 1–20 µs. */
    private long handoffLatency() {
        return (1 + random.nextInt(20)) * US + random.nextInt((int) US);
    }

    /**
     * One iteration's handoffs in each process (see {@link Spec#handoffs}), into the workers' mail
     * boxes, which place them in their bodies: per worker a queue element to another worker (one in
     * ten never taken, one in ten taken without a put), and one future completed by a worker and
     * taken by every other.
     */
    private void handoffs(List<Proc> procs, int iteration, long[] bodyStart, long[] bodyEnd, List<List<long[]>> mail) {
        int threads = spec.threads;
        for (Proc p : procs) {
            int base = p.index * threads;
            for (int k = 0; k < threads; k++) {
                int s = base + random.nextInt(threads);
                int r = base + (s - base + 1 + random.nextInt(threads - 1)) % threads;
                long latency = handoffLatency();
                long from = Math.max(bodyStart[s], bodyStart[r] - latency) + 1;
                long to = Math.min(bodyEnd[s], bodyEnd[r] - latency) - 1;
                if (from > to) {
                    continue;
                }
                long putAt = from + random.nextLong(to - from + 1);
                long key = keys.computeIfAbsent(p.index, i -> new long[] {1, 1})[0]++;
                int fate = random.nextInt(10);
                if (fate != 0) {
                    mail.get(s).add(new long[] {putAt, EventCodes.HANDOFF_PUT, QUEUE_ID, QUEUE_CHANNEL, key});
                }
                if (fate != 1) {
                    mail.get(r).add(new long[] {putAt + latency, EventCodes.HANDOFF_TAKE, QUEUE_ID, QUEUE_CHANNEL, key});
                }
                handoffEdges += fate > 1 ? 1 : 0;
                unmatchedTakes += fate == 0 ? 1 : 0;
            }
            int completer = base + random.nextInt(threads);
            long putAt = Long.MIN_VALUE;
            long latest = Long.MAX_VALUE;
            for (int w = base; w < base + threads; w++) {
                putAt = Math.max(putAt, w == completer ? bodyStart[w] + 1 : bodyStart[w] - 1);
                latest = Math.min(latest, bodyEnd[w] - 2 * US);
            }
            putAt = Math.max(putAt, bodyStart[completer] + 1);
            if (putAt + 21 * US < latest) {
                long key = keys.computeIfAbsent(p.index, i -> new long[] {1, 1})[1]++;
                mail.get(completer).add(new long[] {putAt, EventCodes.HANDOFF_PUT, QUEUE_ID, FUTURE_CHANNEL, key});
                for (int w = base; w < base + threads; w++) {
                    if (w != completer) {
                        mail.get(w).add(new long[] {putAt + handoffLatency(), EventCodes.HANDOFF_TAKE, QUEUE_ID,
                                FUTURE_CHANNEL, key});
                        handoffEdges++;
                    }
                }
            }
        }
    }

    /** The flavours the iterations cycle through with {@link Spec#collectives}. */
    public static final CollectiveFlavour[] FLAVOURS = CollectiveFlavour.values();

    /** Iteration {@code i}'s collective with {@link Spec#collectives}: flavour {@code i mod 5}, root {@code i mod all}. */
    public static CollectiveShape collectiveOf(int iteration, int rank, int all) {
        return new CollectiveShape(FLAVOURS[iteration % FLAVOURS.length], all, rank, iteration % all);
    }

    /** The second payload of worker {@code g}'s barrier events: the participants, or the collective's shape. */
    private long shape(int iteration, int g, int all) {
        return spec.collectives ? collectiveOf(iteration, g, all).pack() : all;
    }

    /**
     * The exits of a collective by its flavour: each worker leaves a latency after the last enter
     * that happens before its exit (Becker §4.1), never before its own enter, and wakes within
     * {@value #WAKE_MAX_US} µs; so a broadcast's or a reduce's non-root may leave before others
     * arrive. Returns the last exit.
     */
    private long collective(List<Proc> procs, int iteration, long[] arrive, long[] now) {
        int threads = spec.threads;
        int all = arrive.length;
        long last = Long.MIN_VALUE;
        for (int g = 0; g < all; g++) {
            CollectiveShape exit = collectiveOf(iteration, g, all);
            long after = Long.MIN_VALUE;
            for (int h = 0; h < all; h++) {
                if (exit.flavour().precedes(h, g, exit.root())) {
                    after = Math.max(after, arrive[h]);
                }
            }
            long ready = after == Long.MIN_VALUE ? arrive[g] : Math.max(arrive[g], after + (2 + random.nextInt(9)) * US);
            now[g] = ready + 1 + random.nextLong(WAKE_MAX_US * US + 1);
            procs.get(g / threads).workers.get(g % threads).add(now[g], EventCodes.BARRIER_EXIT, BARRIER_ID, iteration,
                    shape(iteration, g, all));
            last = Math.max(last, now[g]);
        }
        return last;
    }

    private void writeCalibration(Path dir, SimulatedClock reference, String referenceDomain, List<Proc> procs,
                                  long firstReal, long lastReal) throws IOException {
        Optional<String> refSim = spec.truthColumn ? Optional.of(reference.spec()) : Optional.empty();
        try (CalibrationFile ref = CalibrationFile.create(dir, referenceDomain, Optional.empty(), "sim-reference",
                ClockSource.RDTSC.name(), reference.rate() * TSC_HZ, refSim)) {
            ref.end();
        }
        for (Proc p : procs) {
            if (spec.uncalibrated.contains(p.index)) {
                continue;
            }
            try (CalibrationFile cal = CalibrationFile.create(dir, p.domainId, Optional.of(referenceDomain), p.host,
                    ClockSource.RDTSC.name(), p.clock.rate() * TSC_HZ,
                    spec.truthColumn ? Optional.of(p.clock.spec()) : Optional.empty())) {
                long every = (long) (spec.calibrationEverySeconds * TSC_HZ);
                long t = firstReal - (long) ((0.5 + random.nextDouble()) * TSC_HZ);
                int epoch = 0;
                int limit = spec.zeroLimit.getOrDefault(p.index, Integer.MAX_VALUE);
                while (epoch < limit) {
                    long rtt = (20 + random.nextInt(81)) * US;
                    long t1 = t;
                    long ta = t1 + 1 + random.nextLong(rtt - 1);
                    long t2 = t1 + rtt;
                    cal.zero(new Zero(epoch++, p.clock.apply(t1), reference.apply(ta), p.clock.apply(t2)));
                    if (t1 > lastReal) {
                        break;
                    }
                    t += Math.max(US, every + (long) ((random.nextDouble() * 2 - 1) * every / 3));
                    t = Math.min(t, lastReal + TSC_HZ / 2);
                }
                cal.end();
            }
        }
    }
}
