package dev.dprof.report.perfetto;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.format.EventKind;
import dev.dprof.format.profile.ProfileEvent;
import dev.dprof.format.profile.ProfileEventsWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The export streams: a JVM whose whole heap is {@value #HEAP_MB} MiB exports a profile whose
 * events, held as objects, would need several times that heap, into a trace larger than that heap
 * too. Holding the events, the packets or the file in memory would end in an OutOfMemoryError;
 * the test decides by that and by sizes, never by time.
 */
class PerfettoBoundedMemoryTest {
    static final int HEAP_MB = 24;
    static final int THREADS = 4;
    static final long ROUNDS = 25_000;
    /** Per round and thread: outer enter, 10 inner enter/exit pairs, outer exit, a send and a receive. */
    static final long EVENTS = ROUNDS * THREADS * 24;

    @Test
    void aProfileManyTimesTheHeapExportsInASmallHeap(@TempDir Path dir) throws Exception {
        Path profile = dir.resolve("profile");
        write(profile);
        Path out = dir.resolve("trace.perfetto");
        Path log = dir.resolve("fork.log");
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx" + HEAP_MB + "m", "-cp", System.getProperty("java.class.path"), Export.class.getName(),
                profile.toString(), out.toString()));
        int rc = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start().waitFor();
        String output = Files.readString(log, StandardCharsets.UTF_8);
        assertEquals(0, rc, output);

        // A ProfileEvent is at least 64 bytes on the heap: the events alone would take this much.
        assertTrue(EVENTS * 64 > 4L * HEAP_MB << 20, "the profile is several heaps large");
        assertTrue(Files.size(out) > (long) HEAP_MB << 20, "the trace is larger than the heap: " + Files.size(out));
        assertTrue(output.contains("events=" + EVENTS + ","), output);
        assertTrue(output.contains("flows=" + ROUNDS * THREADS + ","), output);
    }

    /** What the small JVM runs: {@code Export PROFILE OUT}. */
    public static final class Export {
        public static void main(String[] args) throws Exception {
            System.out.println(PerfettoExport.write(Profile.open(Path.of(args[0])), Path.of(args[1])));
        }
    }

    /** Writes the profile as a stream: one process, {@value #THREADS} threads, round after round. */
    static void write(Path dir) throws Exception {
        Files.createDirectories(dir);
        List<ProfileInfo.Stream> streams = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            streams.add(new ProfileInfo.Stream(t, 0, 100 + t, "worker-" + t));
        }
        List<ProfileInfo.Region> regions = List.of(new ProfileInfo.Region(0, "outer", "plain"),
                new ProfileInfo.Region(1, "inner", "plain"), new ProfileInfo.Region(2, "send", "send"),
                new ProfileInfo.Region(3, "receive", "receive"));
        long tick = 1_000;
        try (ProfileEventsWriter w = new ProfileEventsWriter(dir.resolve(Profile.EVENTS), false)) {
            for (long round = 0; round < ROUNDS; round++) {
                for (int t = 0; t < THREADS; t++) {
                    w.write(t, EventKind.ENTER, 0, tick, tick, tick + 5, ProfileEvent.NO_TRUTH, 0, 0);
                    for (int i = 0; i < 10; i++) {
                        w.write(t, EventKind.ENTER, 1, tick += 10, tick, tick + 5, ProfileEvent.NO_TRUTH, 0, 0);
                        w.write(t, EventKind.EXIT, 1, tick += 10, tick, tick + 5, ProfileEvent.NO_TRUTH, 0, 0);
                    }
                    long key = round * THREADS + t;
                    w.write(t, EventKind.SEND, 2, tick += 10, tick, tick + 5, ProfileEvent.NO_TRUTH, 1, key);
                    w.write((t + 1) % THREADS, EventKind.RECEIVE, 3, tick += 10, tick, tick + 5, ProfileEvent.NO_TRUTH, 1, key);
                    w.write(t, EventKind.EXIT, 0, tick += 10, tick, tick + 5, ProfileEvent.NO_TRUTH, 0, 0);
                    tick += 10;
                }
            }
        }
        Profile.writeInfo(dir, new ProfileInfo(ProfileInfo.FORMAT_VERSION, "none", "none (test)", "ref", 1e9, null,
                false, List.of(new ProfileInfo.Process(0, "host", 1, "ref", "REFERENCE", 1e9, 0, null, 0, true, "1/1",
                        "1/1", 1, 1, null, null)), streams, regions, new ProfileInfo.Messages(0, 0, 0, 0, 0, 0, 0), EVENTS, 0,
                0, List.of()));
    }
}
