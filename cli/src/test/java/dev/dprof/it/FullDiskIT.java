package dev.dprof.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.dprof.format.EventKind;
import dev.dprof.format.ProcessEnd;
import dev.dprof.it.ForkedJvm.Output;
import dev.dprof.it.ForkedJvm.Recording;
import dev.dprof.it.app.FloodApp;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A full disk never breaks the host (DESIGN.md, rule 2). The queue is memory-mapped, so writing
 * into a page the file system cannot back would be a SIGBUS; a small tmpfs makes that page real.
 * Needs {@code mount} (root); skipped, saying so, where it is not allowed.
 */
class FullDiskIT {
    static final String YAML = """
            ringEvents: 262144
            # Off: each thread that records a handoff (main starts and joins flood) gets a ring file of its
            # own, 8 MiB at this ringEvents of this test's 24 MiB disk, and the sends it counts would not fit.
            handoffs: off
            regions:
              - {name: flood.send, class: dev.dprof.it.app.FloodApp, method: send, kind: send,
                 channel: flood, key: {arg: 0}}
            """;
    /**
     * The application floods until less than this is free: 1 MiB above the agent's 8 MiB reserve,
     * so the agent is still writing then.
     */
    static final long FLOOD_UNTIL_FREE = 9L << 20;
    /**
     * Calls after that: three events each, more than a per-thread buffer holds. Their bytes must run
     * past the pages the queue's guard may have allocated ahead before the flood stopped
     * ({@code QueueSink.AHEAD_BYTES}, 4 MiB) and the 1 MiB left above the reserve: 150 000 calls did
     * not always (about 20 bytes a call in format 4), and the run then rightly never reached "disk full".
     */
    static final long CALLS_AFTER = 2_000_000;
    /**
     * Calls after another process filled the disk: their events (about 3 bytes each, two per call) must
     * run past the pages the queue's guard had already allocated ahead ({@code QueueSink.AHEAD_BYTES}, 4 MiB)
     * so that its next check meets the full disk; 150 000 calls fit in them when the fill lands right
     * after an allocation, and the run then rightly never reaches "disk full".
     */
    static final long CALLS_AFTER_FILL = 2_000_000;

    private Path mounted;

    /**
     * Chronicle releases the reader's mappings on a background thread after {@code close()}, so
     * the file system may be busy for a moment; a lazy unmount is the last resort.
     */
    @AfterEach
    void unmount() throws Exception {
        if (mounted == null) {
            return;
        }
        for (int attempt = 0; attempt < 50; attempt++) {
            if (command(attempt < 49, "umount", mounted.toString()) == 0) {
                mounted = null;
                return;
            }
            Thread.sleep(100);
        }
        command(false, "umount", "-l", mounted.toString());
        mounted = null;
    }

    @Test
    void fullDiskCountsTheLossAndTheApplicationFinishes(@TempDir Path tmp) throws Exception {
        Path disk = mountTmpfs(tmp, "24m");
        Path out = disk.resolve("out");
        Output output = ForkedJvm.app(FloodApp.class, tmp).agent(ForkedJvm.config(tmp, YAML), out)
                .args(disk, FLOOD_UNTIL_FREE, CALLS_AFTER).run();
        assertEquals(0, output.exitCode(), () -> "the application must finish normally (no SIGBUS)\n" + output);
        assertEquals(List.of("sent"), output.stdout(), output::toString);
        List<String> full = output.dprofLines().stream().filter(l -> l.contains("disk full")).toList();
        assertEquals(1, full.size(), output::toString);
        assertTrue(full.get(0).contains(out.toString()) && full.get(0).contains("counted as lost"), full.get(0));
        assertEquals(2, output.dprofLinesAllWoven().size(), () -> "the recording line and the disk-full line\n" + output);

        Recording run = Recording.readOnly(out);
        assertEquals(List.of(), run.problems());
        ProcessEnd end = run.end().orElseThrow(() -> new AssertionError("the end record fits in the reserve"));
        assertTrue(end.lostEvents() > 0, end::toString);
        assertTrue(end.reason().contains("disk full"), end::toString);
        assertEquals(end.eventsWritten(), run.events().size(), "every event the agent counted as written is readable");
        assertTrue(run.count("flood.send", EventKind.SEND) > 100_000, "sends on disk before it filled");
    }

    /**
     * With {@code drainer=process} on the same disk: the host's records do not fit either, so the start
     * ends the drainer process before it drains, says so once, and the thread drainer then finds the
     * disk as full as before.
     */
    @Test
    void aDrainerProcessOnADiskTooSmallFallsBackToTheThreadAndLeavesTheApplicationUnprofiled(@TempDir Path tmp)
            throws Exception {
        Path disk = mountTmpfs(tmp, "4m");
        Path out = disk.resolve("out");
        Output output = ForkedJvm.app(FloodApp.class, tmp).agent(ForkedJvm.config(tmp, YAML), out, "drainer=process")
                .args(disk, FLOOD_UNTIL_FREE, 10_000).runOk();
        assertEquals(List.of("sent"), output.stdout(), output::toString);
        assertEquals(2, output.dprofLines().size(), output::toString);
        String fallback = output.dprofLines().get(0);
        assertTrue(fallback.startsWith("dprof: drainer process not started (disk full: a host records segment in ")
                && fallback.endsWith("; draining in the application's JVM"), fallback);
        String line = output.dprofLines().get(1);
        assertTrue(line.startsWith("dprof: cannot write the event queue in " + out) && line.contains("no space left")
                && line.endsWith("the application runs unprofiled"), line);
    }

    @Test
    void diskTooSmallForTheQueueLeavesTheApplicationUnprofiled(@TempDir Path tmp) throws Exception {
        Path disk = mountTmpfs(tmp, "4m");
        Path out = disk.resolve("out");
        Output output = ForkedJvm.app(FloodApp.class, tmp).agent(ForkedJvm.config(tmp, YAML), out)
                .args(disk, FLOOD_UNTIL_FREE, 10_000).runOk();
        assertEquals(List.of("sent"), output.stdout(), output::toString);
        assertEquals(1, output.dprofLines().size(), output::toString);
        String line = output.dprofLines().get(0);
        assertTrue(line.startsWith("dprof: cannot write the event queue in " + out) && line.contains("no space left")
                && line.endsWith("the application runs unprofiled"), line);
    }

    /**
     * Another process fills the disk at once, between two of the agent's checks, while the
     * application records (the agent's pages are allocated before Chronicle touches them, so the
     * next allocation fails instead of a page faulting): the application ends normally, the agent
     * uses nothing of what is left, and the run says what it lost and consolidates.
     */
    @Test
    void anotherProcessFillingTheDiskNeverFaultsTheHost(@TempDir Path tmp) throws Exception {
        Path disk = mountTmpfs(tmp, "64m");
        Path out = disk.resolve("out");
        long leave = 3L << 20; // below the 8 MiB reserve of a 64 MiB file system
        ForkedJvm.Running app = ForkedJvm.app(FloodApp.class, tmp).agent(ForkedJvm.config(tmp, YAML), out)
                .args(disk, leave + (1L << 20), CALLS_AFTER_FILL).start();
        java.nio.file.FileStore store = Files.getFileStore(disk);
        // Until the agent has written a few MiB: on a loaded host its start alone can take seconds, and a disk
        // filled before the queue's header is written leaves a run that rightly has nothing to read.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (store.getUsableSpace() > (56L << 20) && app.alive() && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertTrue(store.getUsableSpace() <= (56L << 20), "the agent wrote no 8 MiB before the application ended");
        // The agent allocates as it goes: a fill sized a moment earlier may no longer fit; size it again.
        boolean filled = false;
        for (int attempt = 0; attempt < 20 && !filled; attempt++) {
            Path filler = disk.resolve("filler-" + attempt);
            filled = command(true, "fallocate", "-l", Long.toString(store.getUsableSpace() - leave),
                    filler.toString()) == 0;
            if (!filled) {
                Files.deleteIfExists(filler);
            }
        }
        assertTrue(filled, "fallocate could not fill the disk");
        long freeAfterFill = store.getUsableSpace();
        Output output = app.await();
        assertEquals(0, output.exitCode(), () -> "the application must finish normally (no SIGBUS)\n" + output);
        assertEquals(List.of("sent"), output.stdout(), output::toString);
        assertTrue(output.dprofLines().stream().anyMatch(l -> l.contains("disk full")), output::toString);
        long freeAtEnd = store.getUsableSpace();
        assertTrue(freeAtEnd >= freeAfterFill - (1L << 20), () -> "the agent wrote into the reserve: "
                + freeAtEnd + " bytes free, " + freeAfterFill + " after the filler");

        Recording run = Recording.readOnly(out);
        assertEquals(List.of(), run.problems());
        ProcessEnd end = run.end().orElseThrow(() -> new AssertionError("the end record fits in the reserve"));
        assertTrue(end.lostEvents() > 0 && end.reason().contains("disk full"), end::toString);
        assertEquals(end.eventsWritten(), run.events().size(), "every event the agent counted as written is readable");
        assertEquals(0, dev.dprof.cli.Main.run("consolidate", "--quiet", "--sync", "none", "--out",
                tmp.resolve("profile").toString(), run.dir().toString()));
    }

    private Path mountTmpfs(Path tmp, String size) throws Exception {
        Path disk = Files.createDirectory(tmp.resolve("disk"));
        int exit = command(false, "mount", "-t", "tmpfs", "-o", "size=" + size, "tmpfs", disk.toString());
        assumeTrue(exit == 0, "cannot mount a " + size + " tmpfs here (needs root and mount rights); "
                + "the full-disk checks are skipped");
        mounted = disk;
        return disk;
    }

    private static int command(boolean quiet, String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return -1;
        }
        if (p.exitValue() != 0 && !quiet) {
            System.err.println(String.join(" ", command) + ": " + output.trim());
        }
        return p.exitValue();
    }
}
