package dev.dprof.consolidator.read;

import dev.dprof.format.EventBatchEncoder;
import dev.dprof.format.EventCodes;
import dev.dprof.format.EventKind;
import dev.dprof.format.HandoffRegions;
import dev.dprof.format.RegionInfo;
import dev.dprof.format.RingFile;
import dev.dprof.format.TcpRegions;
import dev.dprof.format.calibration.CalibrationFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;

/**
 * Seeded runs of two killed processes (one on a JVM without virtual threads, one with them), each
 * with two threads that do everything the agent records — plain regions with and without
 * instance, messages between the processes, an N-to-N barrier of all four threads, handoffs,
 * progress points, a virtual thread's pieces — whose last events are only in their ring files, and
 * whose pending ring slots are then damaged in every way a flip can: a kind turned into another
 * known kind, a region id (in the table, out of it, 0), payloads (random, or small enough to
 * collide with real keys), and bit flips anywhere in the slot. Some runs also carry such events in
 * the queue's own batches, encoded as the drainer encodes whatever it finds (a queue document has
 * no checksum). For the fuzz tests of every reader and analysis.
 */
public final class RingDamageFuzz {
    /**
     * The run directory, its process queues, every event the processes recorded, and a calibration
     * folder: the processes' one clock domain as the reference, for a consolidation with FreeZer.
     */
    public record Run(Path dir, List<Path> queues, long recorded, String damage, Path calibration) {
    }

    static final int WORK = 1;
    static final int SEND = 2;
    static final int RECEIVE = 3;
    static final int SYNC = 4;
    static final int COLLECTIVE = 5;
    static final int STEP = 6;
    static final int QUEUE = 7;
    static final int TCP_WRITE = 8;
    static final int TCP_READ = 9;
    /** Region ids of the table run from 1 to this. */
    static final int REGIONS = 9;
    /** The region names, as an analysis names them. */
    public static final String WORK_REGION = "work";
    public static final String SYNC_REGION = "sync";
    static final String QUEUE_SITE = HandoffRegions.siteName(HandoffRegions.Kind.QUEUE, "LinkedBlockingQueue",
            "Fuzz.main:1");

    private static final int ROUNDS = 12;
    private static final int PARTICIPANTS = 4;

    private RingDamageFuzz() {
    }

    /** Writes the run of {@code seed} under {@code dir}. */
    public static Run make(Path dir, long seed) throws IOException {
        Random random = new Random(seed);
        List<Path> queues = new ArrayList<>();
        long recorded = 0;
        StringBuilder damage = new StringBuilder();
        for (int p = 0; p < 2; p++) {
            Path queue = dir.resolve("vm-" + p);
            queues.add(queue);
            List<List<long[]>> threads = List.of(firstThread(p), secondThread(p, p == 1));
            int[] written = new int[threads.size()];
            boolean queueDamage = random.nextBoolean();
            try (TestQueue w = new TestQueue(queue, p == 0 ? "17" : "21", true, 1 + p)) {
                region(w, WORK, WORK_REGION, "plain", "yaml");
                region(w, SEND, "msg.send", "send", "yaml");
                region(w, RECEIVE, "msg.recv", "receive", "yaml");
                region(w, SYNC, SYNC_REGION, "barrier", "yaml");
                region(w, COLLECTIVE, "reduce", "collective", "yaml");
                region(w, STEP, "step", "progress", "yaml");
                region(w, QUEUE, QUEUE_SITE, HandoffRegions.REGION_KIND, "auto");
                region(w, TCP_WRITE, TcpRegions.WRITE, "send", "tcp");
                region(w, TCP_READ, TcpRegions.READ, "receive", "tcp");
                for (int t = 0; t < threads.size(); t++) {
                    List<long[]> events = threads.get(t);
                    w.thread(threadId(p, t), "t" + t);
                    written[t] = events.size() / 3 + random.nextInt(events.size() / 3);
                    for (int from = 0; from < written[t]; ) {
                        int n = Math.min(written[t] - from, 1 + random.nextInt(40));
                        List<long[]> batch = new ArrayList<>();
                        for (long[] e : events.subList(from, from + n)) {
                            batch.add(queueDamage && random.nextInt(15) == 0 ? knownKindDamage(e, random, damage) : e);
                        }
                        w.batch(threadId(p, t), batch);
                        from += n;
                    }
                }
            }
            for (int t = 0; t < threads.size(); t++) {
                List<long[]> events = threads.get(t);
                recorded += events.size();
                int size = Integer.highestOneBit(events.size()) * 2;
                RingRecoveryTest.ringFile(queue, 1 + t, threadId(p, t), "t" + t, events, written[t], 0, 0, size);
                damage(queue.resolve(RingFile.DIRECTORY).resolve((1 + t) + RingFile.SUFFIX), size, written[t],
                        events.size(), random, damage);
            }
        }
        Path calibration = dir.resolveSibling(dir.getFileName() + "-calibration");
        try (CalibrationFile reference = CalibrationFile.create(calibration, TestQueue.DOMAIN, Optional.empty(), "host",
                "rdtsc", 1e9, Optional.empty())) {
            reference.end();
        }
        return new Run(dir, queues, recorded, damage.toString(), calibration);
    }

    private static void region(TestQueue w, int id, String name, String kind, String origin) {
        w.region(new RegionInfo(id, name, kind, origin, "fuzz:" + id, OptionalLong.empty()));
    }

    private static long threadId(int process, int thread) {
        return 10L * (process + 1) + thread + 1;
    }

    private static long tick(int round, int offset) {
        return 1_000_000L + round * 10_000L + offset;
    }

    /** Work, a send to the other process, the barrier, a put and a progress point per round; ends with THREAD_END. */
    private static List<long[]> firstThread(int p) {
        List<long[]> e = new ArrayList<>();
        e.add(new long[] {999_000L + p, EventCodes.THREAD_START});
        for (int r = 0; r < ROUNDS; r++) {
            e.add(event(tick(r, 10 * p), EventCodes.ENTER, WORK));
            e.add(event(tick(r, 10 * p + 100), EventCodes.EXIT, WORK));
            e.add(event(tick(r, 10 * p + 200), EventCodes.ENTER, SEND));
            e.add(event(tick(r, 10 * p + 201), EventCodes.SEND, SEND, 1, 2L * r + p));
            e.add(event(tick(r, 10 * p + 202), EventCodes.EXIT, SEND));
            e.add(event(tick(r, 3000 + p), EventCodes.BARRIER_ENTER, SYNC, r, PARTICIPANTS));
            e.add(event(tick(r, 5000 + p), EventCodes.BARRIER_EXIT, SYNC, r, PARTICIPANTS));
            e.add(event(tick(r, 5100 + p), EventCodes.HANDOFF_PUT, QUEUE, HandoffRegions.FIRST_OBJECT, r));
            e.add(event(tick(r, 5200 + p), EventCodes.PROGRESS, STEP, 1));
        }
        e.add(new long[] {tick(ROUNDS, 0), EventCodes.THREAD_END});
        return e;
    }

    /**
     * A receive of the other process's send, the barrier, the take of the put, work of an instance
     * per round; with virtual threads, a virtual thread's piece on this carrier as well.
     */
    private static List<long[]> secondThread(int p, boolean virtualThreads) {
        List<long[]> e = new ArrayList<>();
        e.add(new long[] {999_100L + p, EventCodes.THREAD_START});
        for (int r = 0; r < ROUNDS; r++) {
            e.add(event(tick(r, 1000 + p), EventCodes.ENTER, RECEIVE));
            e.add(event(tick(r, 1001 + p), EventCodes.RECEIVE, RECEIVE, 1, 2L * r + 1 - p));
            e.add(event(tick(r, 1002 + p), EventCodes.EXIT, RECEIVE));
            e.add(event(tick(r, 3010 + p), EventCodes.BARRIER_ENTER, SYNC, r, PARTICIPANTS));
            e.add(event(tick(r, 5010 + p), EventCodes.BARRIER_EXIT, SYNC, r, PARTICIPANTS));
            e.add(event(tick(r, 5500 + p), EventCodes.HANDOFF_TAKE, QUEUE, HandoffRegions.FIRST_OBJECT, r));
            e.add(event(tick(r, 5600 + p), EventCodes.ENTER_INSTANCE, WORK, p));
            e.add(event(tick(r, 5700 + p), EventCodes.EXIT, WORK));
            if (virtualThreads) {
                long vt = 900 + r % 3;
                e.add(new long[] {tick(r, 6000), EventCodes.VT_MOUNT, vt});
                e.add(event(tick(r, 6100), EventCodes.ENTER, WORK));
                e.add(event(tick(r, 6200), EventCodes.EXIT, WORK));
                e.add(new long[] {tick(r, 6300), EventCodes.VT_UNMOUNT, vt});
            }
        }
        return e;
    }

    private static long[] event(long tick, int kind, int region, long... payload) {
        long[] e = new long[3 + 1];
        e[0] = tick;
        e[1] = EventCodes.header(kind, region);
        System.arraycopy(payload, 0, e, 2, Math.min(payload.length, 2));
        return e;
    }

    /** The event with a known kind, a region and payloads as a flip may leave them (for the queue's batches). */
    private static long[] knownKindDamage(long[] e, Random random, StringBuilder damage) {
        long[] d = new long[] {e[0], e[1], e.length > 2 ? e[2] : 0, e.length > 3 ? e[3] : 0};
        switch (random.nextInt(3)) {
            case 0 -> d[1] = EventCodes.header(randomKind(random), EventCodes.region((int) d[1]));
            case 1 -> d[1] = EventCodes.header(EventCodes.kind((int) d[1]), randomRegion(random));
            default -> {
                d[2] = randomPayload(random);
                d[3] = randomPayload(random);
            }
        }
        damage.append("queue event ").append(e[0]).append(" -> ").append(EventKind.ofCode(EventCodes.kind((int) d[1])))
                .append('/').append(EventCodes.region((int) d[1])).append("; ");
        return d;
    }

    /** Damages pending slots of the ring file, each in one of the ways a flip can. */
    private static void damage(Path ring, int size, int tail, int head, Random random, StringBuilder damage)
            throws IOException {
        if (head == tail || random.nextInt(5) == 0) {
            return;
        }
        ByteBuffer file = ByteBuffer.wrap(Files.readAllBytes(ring)).order(ByteOrder.LITTLE_ENDIAN);
        int slots = 1 + random.nextInt(12);
        for (int i = 0; i < slots; i++) {
            long index = tail + random.nextInt(head - tail);
            int at = RingFile.HEADER_BYTES + (int) (index % size) * EventBatchEncoder.SLOT_BYTES;
            int header = file.getInt(at + 8);
            int mode = random.nextInt(8);
            switch (mode) {
                case 0 -> file.putInt(at + 8, EventCodes.header(randomKind(random), EventCodes.region(header)));
                case 1 -> file.putInt(at + 8, EventCodes.header(EventCodes.kind(header), randomRegion(random)));
                case 2 -> file.putInt(at + 8, EventCodes.header(EventCodes.kind(header), random.nextInt(1 << 24)));
                case 3 -> file.putLong(at + 16, randomPayload(random));
                case 4 -> file.putLong(at + 24, randomPayload(random));
                case 5 -> {
                    file.putInt(at + 8, EventCodes.header(randomKind(random), randomRegion(random)));
                    file.putLong(at + 16, randomPayload(random));
                    file.putLong(at + 24, randomPayload(random));
                }
                default -> {
                    int bytes = 1 + random.nextInt(4);
                    for (int b = 0; b < bytes; b++) {
                        int off = at + random.nextInt(EventBatchEncoder.SLOT_BYTES);
                        file.put(off, (byte) (file.get(off) ^ (1 << random.nextInt(8))));
                    }
                }
            }
            damage.append(ring.getParent().getParent().getFileName()).append(" slot ").append(index).append(" mode ")
                    .append(mode).append("; ");
        }
        Files.write(ring, file.array());
    }

    private static int randomKind(Random random) {
        return EventKind.values()[random.nextInt(EventKind.values().length)].code;
    }

    /** A region id of the table, 0, or one just beyond it. */
    private static int randomRegion(Random random) {
        return random.nextInt(REGIONS + 4);
    }

    /** Anything, or a small value that collides with the real channels, keys, shapes and ids. */
    private static long randomPayload(Random random) {
        return switch (random.nextInt(4)) {
            case 0 -> random.nextLong();
            case 1 -> random.nextInt(ROUNDS * 2 + 2);
            case 2 -> HandoffRegions.FIRST_OBJECT + random.nextInt(3);
            default -> random.nextBoolean() ? PARTICIPANTS + random.nextInt(3) - 1 : 900 + random.nextInt(4);
        };
    }
}
