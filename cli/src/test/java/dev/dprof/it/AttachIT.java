package dev.dprof.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.format.EventKind;
import dev.dprof.it.ForkedJvm.Event;
import dev.dprof.it.ForkedJvm.Output;
import dev.dprof.it.ForkedJvm.Recording;
import dev.dprof.it.ForkedJvm.Running;
import dev.dprof.it.app.AttachApp;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code dprof attach PID}: a class loaded, linked and run before the agent arrives is
 * retransformed, so exactly the calls made after the attach are recorded; attaching a second
 * time is refused with one line.
 */
class AttachIT {
    static final int BEFORE = 2_000;
    static final int AFTER = 1_500;

    @Test
    void classesLoadedBeforeAttachAreRetransformedAndASecondAttachIsRefused(@TempDir Path tmp) throws Exception {
        Running app = ForkedJvm.app(AttachApp.class, tmp).args(BEFORE, AFTER).start();
        app.awaitLine("ready");

        Path out = tmp.resolve("out");
        Path config = ForkedJvm.config(tmp, """
                regions:
                  - {name: target.tick, class: dev.dprof.it.app.AttachApp$Target, method: tick}
                """);
        Output attach = ForkedJvm.dprof(tmp, "attach", app.pid(), "--config", config, "--out", out).runOk();
        String woven = "dprof: woven 1 method in 1 class for 1 of 1 configured regions";
        assertEquals(List.of("dprof: attached to " + app.pid() + " with " + config, woven), attach.stdout(),
                attach::toString);

        // a second attach would split the events between two drainers: it is refused
        Path secondOut = tmp.resolve("second");
        ForkedJvm.dprof(tmp, "attach", app.pid(), "--config", config, "--out", secondOut).runOk();

        app.println("go");
        Output output = app.await();
        assertEquals(0, output.exitCode(), output::toString);
        long total = (long) BEFORE * (BEFORE - 1) / 2 + (long) AFTER * (AFTER - 1) / 2;
        assertEquals(List.of("ready", "done total=" + total), output.stdout(), output::toString);
        assertEquals(4, output.dprofLines().size(), output::toString);
        String line = output.dprofLines().get(0);
        assertTrue(line.startsWith("dprof: recording 1 configured regions to " + out) && line.endsWith(" (attached)"),
                line);
        String dir = line.substring(line.indexOf(" regions to ") + " regions to ".length(),
                line.length() - " (attached)".length());
        assertEquals(List.of(woven, "dprof: already recording to " + dir + "; this attach is ignored", woven),
                output.dprofLines().subList(1, 4), "what was woven is said on attach and at the end, the same way");
        assertFalse(Files.exists(secondOut), "the refused attach writes nothing");

        Recording run = Recording.readOnly(out);
        run.requireCleanEnd();
        assertEquals(AFTER, run.count("target.tick", EventKind.ENTER));
        assertEquals(AFTER, run.count("target.tick", EventKind.EXIT));
        List<Event> after = run.thread("ticker-2").stream().filter(e -> !e.kind().handsOff()).toList();
        assertEquals(2 * AFTER + 2, after.size(), "THREAD_START, the calls after the attach, THREAD_END");
        assertEquals(List.of(EventKind.HANDOFF_PUT), run.thread("ticker-2").stream().map(Event::kind)
                .filter(EventKind::handsOff).toList(), "and the put of its own end, for join");
        assertTrue(run.threadNames().values().stream().noneMatch("ticker"::equals), "no events before the attach");
    }
}
