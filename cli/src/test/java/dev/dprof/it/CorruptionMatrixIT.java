package dev.dprof.it;

import static dev.dprof.cli.InProcess.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.dprof.cli.InProcess.Result;
import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.format.EventBatchReader;
import dev.dprof.format.EventCodes;
import dev.dprof.format.ProcessHeader;
import dev.dprof.format.RecordType;
import dev.dprof.format.RingFile;
import dev.dprof.format.calibration.CalibrationFile;
import dev.dprof.it.ForkedJvm.Output;
import dev.dprof.it.ForkedJvm.Recording;
import dev.dprof.it.ForkedJvm.Running;
import dev.dprof.it.app.CountingApp;
import dev.dprof.it.app.SpinApp;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The corruption matrix, on real queues and ring files made by a recorded run: two
 * processes that ended (CountingApp) and one killed while recording (SpinApp, so its ring files
 * hold events its queue does not). Each case damages one file of one process and runs every
 * reading command in this JVM ({@code stats}, {@code consolidate}, {@code analyze},
 * {@code report}, and each with {@code --strict}). What every case asserts:
 * <ul>
 * <li>exit 0, and 1 with {@code --strict};</li>
 * <li>one line naming the damaged file (the {@code damaged input:} mark);</li>
 * <li>the events read: exactly the intact ones where the damage says how many it took (a flag, a
 * length the following documents repair, a corrupt batch, corrupt ring slots, a process left out
 * whose end record is still there, a killed process's queue cut short, counted by its rings: then
 * also kept + counted lost = recorded); where the damage hides a number nobody can know (the queue
 * of a process that ended cut short, an unreadable ring file), exactly the events before the
 * damage, and the loss printed as "at least";</li>
 * <li>{@code consolidate} reads the same events as {@code stats};</li>
 * <li>no exception name, stack trace, Infinity or NaN in anything printed.</li>
 * </ul>
 * The {@code .cal} cases are read by {@code consolidate} only: exit 1 with {@code file:line}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CorruptionMatrixIT {
    static final int THREADS = 2;
    static final int CALLS = 3000;

    private Path tmp;
    private Path ended;
    private Path killed;
    private Pristine endedPristine;
    private Pristine killedPristine;

    /** What {@code stats} reads of an undamaged run. */
    private record Pristine(long events, long lost) {
    }

    @BeforeAll
    void record(@TempDir Path dir) throws Exception {
        tmp = dir;
        ended = tmp.resolve("ended");
        Path config = ForkedJvm.config(tmp, CountingIT.YAML);
        ForkedJvm.app(CountingApp.class, tmp).agent(config, ended).args(THREADS, CALLS).runOk();
        ForkedJvm.app(CountingApp.class, tmp).agent(config, ended).args(THREADS, CALLS).runOk();
        assertEquals(2, queues(ended).size());
        endedPristine = pristine(ended);

        killed = tmp.resolve("killed");
        Path spin = Files.writeString(tmp.resolve("spin.yaml"), """
                drainIntervalMs: 10
                regions:
                  - {name: spin.step, class: dev.dprof.it.app.SpinApp, method: step}
                """);
        Running app = ForkedJvm.app(SpinApp.class, tmp).agent(spin, killed).start();
        app.awaitLine("running");
        Thread.sleep(300);
        Output output = app.kill();
        assertEquals(137, output.exitCode(), output::toString);
        // the intact neighbour of the killed process: one of the ended ones
        copyTree(queues(ended).get(0), killed.resolve(queues(ended).get(0).getFileName()));
        killedPristine = pristine(killed);
    }

    private Pristine pristine(Path run) throws Exception {
        Result r = run("stats", "--json", tmp.resolve("pristine.json").toString(), run.toString());
        assertEquals(0, r.exit(), r::toString);
        JsonNode json = Json.read(tmp.resolve("pristine.json"));
        assertTrue(json.get("lostEventsExact").asBoolean(), r::toString);
        return new Pristine(json.get("events").asLong(), json.get("lostEvents").asLong());
    }

    // ---- the queue files (.cq4, metadata.cq4t) of an ended process ----

    @ParameterizedTest
    @ValueSource(strings = {"cut-inside-document", "cut-at-document-boundary", "cut-to-100-bytes",
        "huge-document-length", "flipped-chronicle-header", "not-complete-middle-document",
        "metadata-flag-on-a-record", "corrupt-batch", "metadata.cq4t-missing", "metadata.cq4t-flagged",
        "metadata.cq4t-random"})
    void damagedQueue(String damage) throws Exception {
        Path run = copyTree(ended, tmp.resolve(damage));
        Path victim = queues(run).get(1);
        Path cq4 = cq4(victim);
        List<Doc> docs = Doc.walk(cq4);
        long victimEvents = docs.stream().mapToLong(Doc::events).sum();
        long expected;
        boolean exact = true;
        Path named = cq4;
        switch (damage) {
            case "cut-inside-document" -> {
                Doc d = lastBatch(docs);
                truncate(cq4, d.offset + 4 + d.length / 2);
                expected = endedPristine.events - victimEvents + eventsBefore(docs, d.offset);
                exact = false;
            }
            case "cut-at-document-boundary" -> {
                Doc d = lastBatch(docs);
                truncate(cq4, d.offset);
                expected = endedPristine.events - victimEvents + eventsBefore(docs, d.offset);
                exact = false;
            }
            case "cut-to-100-bytes" -> {
                truncate(cq4, 100);
                expected = endedPristine.events - victimEvents;
                exact = false;
            }
            case "huge-document-length" -> {
                Doc d = middleBatch(docs);
                putInt(cq4, d.offset, (d.header & 0xC000_0000) | 0x3FFF_FF00);
                // the documents after it chain to the queue's end: its length is repaired, nothing is lost
                expected = endedPristine.events;
            }
            case "flipped-chronicle-header" -> {
                byte[] bytes = Files.readAllBytes(cq4);
                Random random = new Random(19);
                for (int i = 0; i < 1000; i++) {
                    bytes[random.nextInt(200)] ^= (byte) (1 << random.nextInt(8));
                }
                Files.write(cq4, bytes);
                // left out, and counted by its end record (ProcessCensus): exact
                expected = endedPristine.events - victimEvents;
            }
            case "not-complete-middle-document" -> {
                Doc d = middleBatch(docs);
                putInt(cq4, d.offset, d.header | 0x8000_0000);
                expected = endedPristine.events;
            }
            case "metadata-flag-on-a-record" -> {
                Doc d = middleBatch(docs);
                putInt(cq4, d.offset, d.header | 0x4000_0000);
                expected = endedPristine.events;
            }
            case "corrupt-batch" -> {
                // the first event's header of a batch without communication becomes kind 0: the whole batch is lost
                Doc d = docs.stream().filter(x -> x.events > 0 && x.noCommunication).reduce((a, b) -> b).orElseThrow();
                putByte(cq4, d.offset + 4 + d.firstEventAt, 0);
                expected = endedPristine.events - d.events;
                named = victim;
            }
            case "metadata.cq4t-missing" -> {
                Files.delete(victim.resolve("metadata.cq4t"));
                expected = endedPristine.events;
                named = victim.resolve("metadata.cq4t");
            }
            case "metadata.cq4t-flagged" -> {
                Path meta = victim.resolve("metadata.cq4t");
                putInt(meta, 0, getInt(meta, 0) | 0x8000_0000);
                expected = endedPristine.events;
                named = meta;
            }
            case "metadata.cq4t-random" -> {
                Path meta = victim.resolve("metadata.cq4t");
                byte[] bytes = new byte[(int) Files.size(meta)];
                new Random(7).nextBytes(bytes);
                Files.write(meta, bytes);
                expected = endedPristine.events;
                named = meta;
            }
            default -> throw new IllegalArgumentException(damage);
        }
        long lost = exact ? endedPristine.events + endedPristine.lost - expected : 0;
        checkEveryCommand(run, named, expected, exact, lost, endedPristine);
        if (damage.equals("flipped-chronicle-header")) {
            // the process left out has its entry in profile.json: its file, why, and its events, exactly
            List<ProfileInfo.LeftOut> leftOut = Profile.open(run.resolveSibling(damage + "-profile")).info().leftOut();
            assertEquals(1, leftOut.size(), leftOut::toString);
            assertEquals(victim.toString(), leftOut.get(0).queue());
            assertEquals(cq4.toString(), leftOut.get(0).file());
            assertTrue(leftOut.get(0).lostEventsExact(), leftOut::toString);
            assertEquals("its end record", leftOut.get(0).countedBy());
            assertEquals(endedPristine.events + endedPristine.lost - expected, leftOut.get(0).lostEvents());
        }
    }

    // ---- the ring files of a killed process ----

    @ParameterizedTest
    @ValueSource(strings = {"random-ring-file", "ring-file-cut", "rings-is-a-file", "unknown-kinds-in-100-slots",
        "sends-in-100-slots", "unknown-regions-in-100-slots", "1000-bit-flips-in-slots",
        "queue-cut-at-a-document-boundary"})
    void damagedRings(String damage) throws Exception {
        Path run = copyTree(killed, tmp.resolve(damage));
        Path victim = queues(run).stream().filter(q -> Files.isDirectory(q.resolve(RingFile.DIRECTORY))
                && ringFiles(q).size() > 0).findFirst().orElseThrow(() -> new AssertionError("no ring files"));
        Path ring = ringFiles(victim).stream().max(Comparator.comparingLong(CorruptionMatrixIT::pending)).orElseThrow();
        long pending = pending(ring);
        assertTrue(pending > 0, "the killed process left no pending events in its rings");
        long allPending = ringFiles(victim).stream().mapToLong(CorruptionMatrixIT::pending).sum();
        long expected;
        boolean exact = true;
        long lost;
        Path named = ring;
        switch (damage) {
            case "random-ring-file" -> {
                byte[] bytes = new byte[(int) Files.size(ring)];
                new Random(2).nextBytes(bytes);
                Files.write(ring, bytes);
                expected = killedPristine.events - pending;
                exact = false;
                lost = 0;
            }
            case "ring-file-cut" -> {
                truncate(ring, 3000);
                expected = killedPristine.events - pending;
                exact = false;
                lost = 0;
            }
            case "rings-is-a-file" -> {
                Path dir = victim.resolve(RingFile.DIRECTORY);
                deleteTree(dir);
                Files.writeString(dir, "not a directory");
                expected = killedPristine.events - allPending;
                exact = false;
                lost = 0;
                named = dir;
            }
            case "unknown-kinds-in-100-slots" -> {
                long tail = getLong(ring, RingFile.TAIL_AT);
                long events = getLong(ring, RingFile.EVENTS_AT);
                int slots = (int) Math.min(100, pending);
                for (int i = 0; i < slots; i++) {
                    long index = tail + (pending - 1) * i / Math.max(1, slots - 1);
                    putByte(ring, RingFile.HEADER_BYTES + (index & (events - 1)) * 32 + 8, 0);
                }
                expected = killedPristine.events - slots;
                lost = killedPristine.lost + slots;
            }
            case "sends-in-100-slots", "unknown-regions-in-100-slots" -> {
                // a known kind where no probe records it (a send in spin.step, a plain region, or in no region), or a
                // region id the process's table does not hold: proven corrupt, left out and counted, exactly
                long tail = getLong(ring, RingFile.TAIL_AT);
                long events = getLong(ring, RingFile.EVENTS_AT);
                int slots = (int) Math.min(100, pending);
                for (int i = 0; i < slots; i++) {
                    long index = tail + (pending - 1) * i / Math.max(1, slots - 1);
                    long at = RingFile.HEADER_BYTES + (index & (events - 1)) * 32 + 8;
                    if (damage.startsWith("sends")) {
                        putByte(ring, at, EventCodes.SEND);
                    } else {
                        putInt(ring, at, EventCodes.header(EventCodes.kind(getInt(ring, at)), (1 << 24) - 1));
                    }
                }
                expected = killedPristine.events - slots;
                lost = killedPristine.lost + slots;
            }
            case "1000-bit-flips-in-slots" -> {
                long tail = getLong(ring, RingFile.TAIL_AT);
                long events = getLong(ring, RingFile.EVENTS_AT);
                Random random = new Random(1000);
                for (int i = 0; i < 1000; i++) {
                    long index = tail + (long) (random.nextDouble() * pending);
                    long at = RingFile.HEADER_BYTES + (index & (events - 1)) * 32 + random.nextInt(32);
                    putByte(ring, at, getByte(ring, at) ^ (1 << random.nextInt(8)));
                }
                // Flips a slot cannot show (a payload, a low tick bit) are read as events: only the sum is exact.
                expected = -1;
                lost = -1;
            }
            case "queue-cut-at-a-document-boundary" -> {
                // the killed process's queue loses its last batch; its rings' tails count what the cut took
                Path cq4 = cq4(victim);
                truncate(cq4, lastBatch(Doc.walk(cq4)).offset);
                expected = -1;
                lost = -1;
                named = cq4;
            }
            default -> throw new IllegalArgumentException(damage);
        }
        checkEveryCommand(run, named, expected, exact, lost, killedPristine);
    }

    // ---- calibration files ----

    @ParameterizedTest
    @ValueSource(strings = {"tickHz 0", "tickHz NaN", "tickHz 1e300", "zero near Long.MAX_VALUE", "random bytes",
        "zero line torn in the middle"})
    void damagedCalibration(String damage) throws Exception {
        Path run = queues(ended).get(0);
        ProcessHeader header = Recording.readOnly(run).header();
        Path cal = tmp.resolve("cal-" + damage.replace(' ', '-'));
        Path file;
        try (CalibrationFile f = CalibrationFile.create(cal, header.domainId(), Optional.empty(), "host", "rdtsc",
                header.nominalTickHz(), Optional.empty())) {
            f.end();
            file = f.path();
        }
        List<String> lines = new ArrayList<>(Files.readAllLines(file));
        int line;
        switch (damage) {
            case "tickHz 0", "tickHz NaN", "tickHz 1e300" -> {
                lines.set(1, lines.get(1).replaceAll("tickHz \\S+", damage));
                line = 2;
            }
            case "zero near Long.MAX_VALUE" -> {
                lines.add(2, "zero 0 " + (Long.MAX_VALUE - 10) + " " + (Long.MAX_VALUE - 5) + " " + (Long.MAX_VALUE - 1));
                line = 3;
            }
            case "random bytes" -> {
                byte[] bytes = new byte[300];
                new Random(3).nextBytes(bytes);
                lines = List.of(new String(bytes, StandardCharsets.ISO_8859_1));
                line = 1;
            }
            case "zero line torn in the middle" -> {
                lines.add(2, "zero 0 12 1");
                line = 3;
            }
            default -> throw new IllegalArgumentException(damage);
        }
        Files.write(file, lines);
        Result r = run("consolidate", "--quiet", "--calibration", cal.toString(), "--out",
                tmp.resolve("profile-" + cal.getFileName()).toString(), run.toString());
        assertEquals(1, r.exit(), r::toString);
        assertTrue(r.err().strip().lines().count() == 1 && r.err().startsWith("dprof: " + file + ":" + line + ":"),
                r::toString);
        // The line quotes the bad value (NaN, say); only exception names and traces are out of place.
        assertFalse(r.err().contains("Exception") || r.err().contains("\tat "), r::toString);
    }

    // ---- the checks shared by every case ----

    /**
     * Every reading command on the damaged run. {@code expected} events read ({@code -1}: only kept
     * + lost is checked), {@code lost} counted exactly when {@code exact} ({@code -1}: see
     * {@code expected}), or "at least" printed when not.
     */
    private void checkEveryCommand(Path run, Path named, long expected, boolean exact, long lost, Pristine pristine)
            throws Exception {
        Path json = run.resolveSibling(run.getFileName() + "-stats.json");
        Result stats = run("stats", "--json", json.toString(), run.toString());
        assertEquals(0, stats.exit(), stats::toString);
        assertNamed(stats, named);
        assertClean(stats);
        JsonNode figures = Json.read(json);
        long read = figures.get("events").asLong();
        long counted = figures.get("lostEvents").asLong();
        if (expected >= 0) {
            assertEquals(expected, read, () -> "events read\n" + stats);
        }
        assertEquals(exact, figures.get("lostEventsExact").asBoolean(), stats::toString);
        if (exact && lost >= 0) {
            assertEquals(lost, counted, () -> "events counted lost\n" + stats);
        }
        if (exact) {
            assertEquals(pristine.events + pristine.lost, read + counted, () -> "kept + lost = recorded\n" + stats);
        } else {
            assertTrue(stats.out().lines().findFirst().orElse("").endsWith("at least " + counted + " lost"), stats::toString);
        }
        Result strict = run("stats", "--strict", run.toString());
        assertEquals(1, strict.exit(), strict::toString);
        assertTrue(strict.err().strip().endsWith("(listed above)"), strict::toString);

        Path profile = run.resolveSibling(run.getFileName() + "-profile");
        Result consolidate = run("consolidate", "--quiet", "--sync", "none", "--out", profile.toString(), run.toString());
        assertEquals(0, consolidate.exit(), consolidate::toString);
        assertNamed(consolidate, named);
        assertClean(consolidate);
        ProfileInfo info = Profile.open(profile).info();
        assertEquals(read, info.events(), () -> "consolidate reads what stats reads\n" + consolidate);
        // a process left out has no process entry: profile.json's leftOut carries what its files say it recorded,
        // the figure its damage line prints, in stats and in consolidate alike
        long leftOutLost = info.leftOut().stream().mapToLong(ProfileInfo.LeftOut::lostEvents).sum();
        long profileLost = info.processes().stream().mapToLong(ProfileInfo.Process::lostEvents).sum() + leftOutLost;
        assertEquals(leftOutCounted(stats.err()), leftOutCounted(consolidate.err()), consolidate::toString);
        assertEquals(leftOutCounted(consolidate.err()), leftOutLost, () -> "profile.json's leftOut\n" + consolidate);
        assertEquals(leftOutLost, StreamSupport.stream(figures.get("leftOut").spliterator(), false)
                .mapToLong(l -> l.get("lostEvents").asLong()).sum(), () -> "stats --json's leftOut\n" + stats);
        assertEquals(consolidate.err().split("; the process is left out, ", -1).length - 1, info.leftOut().size(),
                consolidate::toString);
        for (ProfileInfo.LeftOut l : info.leftOut()) {
            assertTrue(l.file().equals(named.toString()) || l.file().startsWith(named + "/"), l::toString);
            assertTrue(consolidate.err().contains(l.queue() + ": " + l.reason()), l::toString);
        }
        if (exact) {
            assertEquals(counted, profileLost, () -> "profile.json counts the loss as stats does\n" + consolidate);
        }
        assertEquals(1, run("consolidate", "--quiet", "--strict", "--sync", "none", "--out",
                profile.resolveSibling(profile.getFileName() + "-strict").toString(), run.toString()).exit());

        Result analyze = run("analyze", profile.toString(), "stats");
        assertEquals(0, analyze.exit(), analyze::toString);
        assertNamed(analyze, named);
        assertClean(analyze);
        assertEquals(1, run("analyze", profile.toString(), "--strict", "stats").exit());
        Result report = run("report", profile.toString(), "--no-baselines", "--html",
                profile.resolve("report.html").toString(), "--json", profile.resolve("report.json").toString());
        assertEquals(0, report.exit(), report::toString);
        JsonNode reportLeftOut = Json.read(profile.resolve("report.json")).findValue("leftOut");
        assertEquals(info.leftOut().size(), reportLeftOut.size(), report::toString);
        for (int i = 0; i < reportLeftOut.size(); i++) {
            assertEquals(info.leftOut().get(i).lostEvents(), reportLeftOut.get(i).get("lostEvents").asLong());
        }
        assertNamed(report, named);
        assertClean(report);
        assertEquals(1, run("report", profile.toString(), "--strict", "--no-baselines").exit());
    }

    private static final Pattern LEFT_OUT = Pattern.compile("recorded (\\d+) events \\([^)]*\\), all counted as lost");

    /** The events that the processes left out are counted by, as the damage lines say. */
    private static long leftOutCounted(String err) {
        Matcher m = LEFT_OUT.matcher(err);
        long sum = 0;
        while (m.find()) {
            sum += Long.parseLong(m.group(1));
        }
        return sum;
    }

    private static void assertNamed(Result r, Path file) {
        assertTrue(r.err().lines().anyMatch(l -> l.startsWith("dprof: damaged input: ") && l.contains(file.toString())),
                () -> "no line names " + file + "\n" + r);
    }

    private static void assertClean(Result r) {
        String all = r.out() + r.err();
        for (String bad : List.of("Exception", "\tat ", "Infinity", "NaN", "Error:")) {
            assertFalse(all.contains(bad), () -> "'" + bad + "' printed\n" + r);
        }
    }



    // ---- the queue's documents, walked as docs/FORMAT.md and Chronicle lay them out ----

    /** One document of a .cq4: where, its header, its length, and its events if it is a batch (else 0). */
    private record Doc(long offset, int header, int length, long events, boolean noCommunication, int firstEventAt) {
        static List<Doc> walk(Path cq4) throws IOException {
            ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(cq4)).order(ByteOrder.LITTLE_ENDIAN);
            List<Doc> docs = new ArrayList<>();
            int at = 0;
            while (at + 4 <= b.limit()) {
                int header = b.getInt(at);
                if (header == 0) {
                    break;
                }
                int length = header & 0x3FFF_FFFF;
                long events = 0;
                boolean noCommunication = false;
                int first = -1;
                if ((header & 0x4000_0000) == 0 && length > 0 && b.get(at + 4) == RecordType.BATCH) {
                    byte[] body = new byte[length - 1];
                    b.get(at + 5, body);
                    EventBatchReader r = new EventBatchReader();
                    try {
                        r.reset(body, 0, body.length);
                    } catch (dev.dprof.format.FormatException e) {
                        throw new AssertionError(cq4 + " is damaged before the test damaged it", e);
                    }
                    events = r.count();
                    noCommunication = r.holdsNoCommunication();
                    first = 1 + varintBytes(body, 0) + 1 + varintBytes(body, varintBytes(body, 0) + 1);
                }
                docs.add(new Doc(at, header, length, events, noCommunication, first));
                at = (at + 4 + length + 3) & ~3;
            }
            return docs;
        }

        private static int varintBytes(byte[] b, int from) {
            int n = 1;
            while ((b[from + n - 1] & 0x80) != 0) {
                n++;
            }
            return n;
        }
    }

    private static Doc lastBatch(List<Doc> docs) {
        return docs.stream().filter(d -> d.events > 0).reduce((a, b) -> b).orElseThrow();
    }

    private static Doc middleBatch(List<Doc> docs) {
        List<Doc> batches = docs.stream().filter(d -> d.events > 0).toList();
        return batches.get(batches.size() / 2);
    }

    private static long eventsBefore(List<Doc> docs, long offset) {
        return docs.stream().filter(d -> d.offset < offset).mapToLong(Doc::events).sum();
    }

    // ---- files ----

    private static List<Path> queues(Path run) throws IOException {
        try (Stream<Path> s = Files.list(run)) {
            return s.filter(p -> p.getFileName().toString().startsWith("vm-")).sorted().toList();
        }
    }

    private static Path cq4(Path queue) throws IOException {
        try (Stream<Path> s = Files.list(queue)) {
            List<Path> files = s.filter(p -> p.toString().endsWith(".cq4")).toList();
            assertEquals(1, files.size(), files::toString);
            return files.get(0);
        }
    }

    private static List<Path> ringFiles(Path queue) {
        try (Stream<Path> s = Files.list(queue.resolve(RingFile.DIRECTORY))) {
            return s.filter(p -> p.toString().endsWith(RingFile.SUFFIX)).sorted().toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    private static long pending(Path ring) {
        try {
            return Files.size(ring) < RingFile.HEADER_BYTES ? 0
                    : getLong(ring, RingFile.HEAD_AT) - getLong(ring, RingFile.TAIL_AT);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static Path copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> walk = Files.walk(from)) {
            for (Path p : walk.toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target);
                }
            }
        }
        return to;
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    private static void truncate(Path file, long length) throws IOException {
        try (var ch = java.nio.channels.FileChannel.open(file, java.nio.file.StandardOpenOption.WRITE)) {
            ch.truncate(length);
        }
    }

    private static ByteBuffer read(Path file, long at, int n) throws IOException {
        try (var ch = java.nio.channels.FileChannel.open(file)) {
            ByteBuffer b = ByteBuffer.allocate(n).order(ByteOrder.LITTLE_ENDIAN);
            ch.read(b, at);
            return b.flip();
        }
    }

    private static void write(Path file, long at, ByteBuffer b) throws IOException {
        try (var ch = java.nio.channels.FileChannel.open(file, java.nio.file.StandardOpenOption.WRITE)) {
            ch.write(b, at);
        }
    }

    private static int getInt(Path file, long at) throws IOException {
        return read(file, at, 4).getInt(0);
    }

    private static long getLong(Path file, long at) throws IOException {
        return read(file, at, 8).getLong(0);
    }

    private static int getByte(Path file, long at) throws IOException {
        return read(file, at, 1).get(0) & 0xFF;
    }

    private static void putInt(Path file, long at, int value) throws IOException {
        write(file, at, ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(0, value));
    }

    private static void putByte(Path file, long at, int value) throws IOException {
        write(file, at, ByteBuffer.wrap(new byte[] {(byte) value}));
    }

    /** Reads a JSON file the commands wrote. */
    private static final class Json {
        static JsonNode read(Path file) throws IOException {
            return new com.fasterxml.jackson.databind.ObjectMapper().readTree(file.toFile());
        }
    }
}
