package dev.dprof.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.format.EventKind;
import dev.dprof.format.HostRecords;
import dev.dprof.format.RingFile;
import dev.dprof.it.ForkedJvm.Output;
import dev.dprof.it.ForkedJvm.Recording;
import dev.dprof.it.ForkedJvm.Running;
import dev.dprof.it.app.BurstApp;
import dev.dprof.it.app.CountingApp;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The drainer in its own process ({@code drainer=process}; docs/DESIGN.md, "The drainer in its own
 * process"): the same exact counts as the thread drainer's; a host killed with {@code kill -9} has
 * every event it recorded drained by its drainer process, none left to the readers' recovery; and a
 * host whose drainer process cannot be started says so once and drains in its own JVM.
 */
class ProcessDrainerIT {
    static final String PROCESS = "drainer=process";

    /** The drainer process reads the ring files, which only the native rings have. */
    @BeforeAll
    static void nativeRings() {
        ForkedJvm.assumeNativeLibrary();
    }

    @Test
    void everyCallIsRecordedExactlyOnceByTheDrainerProcess(@TempDir Path tmp) throws Exception {
        Recording run = CountingIT.runAndCheck(tmp, ForkedJvm.app(CountingApp.class, tmp), PROCESS);
        assertEquals("", Files.readString(run.dir().resolve("drainer.log")), "the drainer process said nothing");
        assertEquals(List.of(), leftFiles(run.dir()), "ring files and host records left after a normal end");
    }

    @Test
    void aKilledHostHasEveryEventDrainedByItsDrainerProcess(@TempDir Path tmp) throws Exception {
        Path out = tmp.resolve("out");
        Path config = ForkedJvm.config(tmp, """
                regions:
                  - {name: burst.step, class: dev.dprof.it.app.BurstApp, method: step}
                """);
        Running app = ForkedJvm.app(BurstApp.class, tmp).agent(config, out, PROCESS).start();
        app.awaitLine("ready");
        List<ProcessHandle> drainers = ProcessHandle.of(app.pid()).orElseThrow().children().toList();
        assertEquals(1, drainers.size(), () -> "the host's children: " + drainers);
        app.println("go");
        app.awaitLine("burst 1");
        Thread.sleep(1500);
        app.println("go");
        app.awaitLine("burst 2");
        Output output = app.kill();
        assertEquals(137, output.exitCode(), output::toString);
        drainers.get(0).onExit().get(60, TimeUnit.SECONDS);

        Recording run = Recording.readOnly(out);
        assertEquals(List.of(), run.problems());
        assertTrue(run.end().isEmpty(), "a killed host has no end record");
        assertEquals(2L * BurstApp.CALLS, run.count("burst.step", EventKind.ENTER), "both bursts");
        assertEquals(2L * BurstApp.CALLS, run.count("burst.step", EventKind.EXIT), "both bursts");
        // Drained by the drainer process, not recovered by the reader: every ring is handed back to its head.
        try (Stream<Path> files = Files.list(run.dir().resolve(RingFile.DIRECTORY))) {
            for (Path f : files.filter(f -> f.toString().endsWith(RingFile.SUFFIX)).toList()) {
                RingFile ring = RingFile.read(f);
                assertTrue(ring == null || ring.tail() == ring.head(), () -> f + ": " + (ring.head() - ring.tail())
                        + " events left to the recovery");
            }
        }
    }

    @Test
    void aDrainerProcessThatCannotStartLeavesTheDrainToTheHostsJvm(@TempDir Path tmp) throws Exception {
        Path out = tmp.resolve("out");
        // No launch mechanism: every process start of this JVM fails.
        Output output = ForkedJvm.app(CountingApp.class, tmp)
                .agent(ForkedJvm.config(tmp, CountingIT.YAML), out, PROCESS)
                .property("jdk.lang.Process.launchMechanism", "NONE").args(2, 100).runOk();
        List<String> notStarted = output.dprofLines().stream()
                .filter(l -> l.startsWith("dprof: drainer process not started (")).toList();
        assertEquals(1, notStarted.size(), output::toString);
        assertTrue(notStarted.get(0).endsWith("; draining in the application's JVM"), notStarted.get(0));
        Recording run = Recording.readOnly(out);
        run.requireCleanEnd();
        assertEquals(200, run.count("count.compute", EventKind.ENTER), "2 threads × 100 calls");
        assertEquals(200, run.count("count.compute", EventKind.EXIT));
        assertEquals(List.of(), leftFiles(run.dir()));
    }

    private static List<Path> leftFiles(Path dir) throws Exception {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(f -> f.toString().endsWith(RingFile.SUFFIX) || f.toString().endsWith(HostRecords.SUFFIX))
                    .toList();
        }
    }
}
