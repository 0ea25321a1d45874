package dev.dprof.it;

import static dev.dprof.format.EventKind.ENTER;
import static dev.dprof.format.EventKind.EXIT;
import static dev.dprof.format.EventKind.EXIT_THROW;
import static dev.dprof.format.EventKind.THREAD_END;
import static dev.dprof.format.EventKind.THREAD_START;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.dprof.consolidator.stats.RegionStats;
import dev.dprof.consolidator.stats.RunStatistics;
import dev.dprof.format.EventKind;
import dev.dprof.format.HandoffRegions;
import dev.dprof.it.ForkedJvm.Event;
import dev.dprof.it.ForkedJvm.Output;
import dev.dprof.it.ForkedJvm.Recording;
import dev.dprof.it.app.NestingApp;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Nesting, exceptional exits, recursion, a static method and constructor regions: the events of
 * {@link NestingApp}'s thread are exactly the expected sequence, and the application sees every
 * exception it throws unchanged (it checks that itself and prints {@code ok …}).
 */
class NestingIT {
    static final String YAML = """
            regions:
              - {name: nest.outer, class: dev.dprof.it.app.NestingApp$Nest, method: outer}
              - {name: nest.inner, class: dev.dprof.it.app.NestingApp$Nest, method: inner}
              - {name: nest.thrower, class: dev.dprof.it.app.NestingApp$Nest, method: thrower}
              - {name: nest.catching, class: dev.dprof.it.app.NestingApp$Nest, method: catching}
              - {name: nest.rethrowing, class: dev.dprof.it.app.NestingApp$Nest, method: rethrowing}
              - {name: nest.recurse, class: dev.dprof.it.app.NestingApp$Nest, method: recurse}
              - {name: nest.static, class: dev.dprof.it.app.NestingApp$Nest, method: staticRegion}
              - {name: widget.new, class: dev.dprof.it.app.NestingApp$Widget, method: <init>}
            """;

    @Test
    void nestingExceptionsRecursionAndConstructors(@TempDir Path tmp) throws Exception {
        runAndCheck(tmp, ForkedJvm.app(NestingApp.class, tmp));
    }

    /** Runs {@link NestingApp} with the agent in {@code jvm} and checks its events; shared with {@link Jdk25IT}. */
    static void runAndCheck(Path tmp, ForkedJvm jvm) throws Exception {
        Path out = tmp.resolve("out");
        Output output = jvm.agent(ForkedJvm.config(tmp, YAML), out).runOk();
        assertEquals(expectedOutput(), output.stdout(), output::toString);
        assertEquals(1, output.dprofLinesAllWoven().size(), output::toString);

        Recording run = Recording.readOnly(out);
        run.requireCleanEnd();
        List<String> actual = run.thread("nest").stream().map(NestingIT::describe).toList();
        assertEquals(expectedEvents(), actual);

        RunStatistics stats = RunStatistics.of(List.of(run.dir()));
        Map<String, Long> counts = stats.regions().stream()
                .filter(r -> r.name().startsWith("nest.") || r.name().startsWith("widget."))
                .collect(Collectors.toMap(RegionStats::name, RegionStats::count));
        // A recursive call inside an open region of the same name counts once, as the outermost call.
        assertEquals(Map.of("nest.outer", 1L, "nest.inner", 2L, "nest.thrower", 3L, "nest.catching", 1L,
                "nest.rethrowing", 1L, "nest.recurse", 1L, "nest.static", 1L, "widget.new", 2L), counts);
        assertEquals(0, stats.openRegions());
        assertEquals(0, stats.unfinishedProcesses());
    }

    static List<String> expectedOutput() {
        List<String> lines = new ArrayList<>(List.of("ok outer"));
        for (String what : List.of("thrower", "catching", "rethrowing", "recurse", "static", "constructor",
                "constructor throw")) {
            switch (what) {
                case "thrower", "rethrowing" -> lines.addAll(sameException(what, "thrower"));
                case "constructor throw" -> lines.addAll(sameException(what, "<init>"));
                default -> lines.add("ok " + what);
            }
        }
        lines.add("done");
        return lines;
    }

    private static List<String> sameException(String what, String top) {
        return List.of("ok " + what + " same exception", "ok " + what + " message", "ok " + what + " top frame " + top,
                "ok " + what + " no cause, no suppressed");
    }

    static List<String> expectedEvents() {
        List<String> e = new ArrayList<>();
        e.add(describe(THREAD_START, null));
        e.addAll(List.of("ENTER nest.outer", "ENTER nest.inner", "EXIT nest.inner", "ENTER nest.inner",
                "EXIT nest.inner", "EXIT nest.outer"));
        e.addAll(List.of("ENTER nest.thrower", "EXIT_THROW nest.thrower"));
        e.addAll(List.of("ENTER nest.catching", "ENTER nest.thrower", "EXIT_THROW nest.thrower", "EXIT nest.catching"));
        e.addAll(List.of("ENTER nest.rethrowing", "ENTER nest.thrower", "EXIT_THROW nest.thrower",
                "EXIT_THROW nest.rethrowing"));
        for (int i = 0; i < 4; i++) {
            e.add(describe(ENTER, "nest.recurse"));
        }
        for (int i = 0; i < 4; i++) {
            e.add(describe(EXIT, "nest.recurse"));
        }
        e.addAll(List.of("ENTER nest.static", "EXIT nest.static"));
        e.addAll(List.of(describe(ENTER, "widget.new"), describe(EXIT, "widget.new")));
        e.addAll(List.of(describe(ENTER, "widget.new"), describe(EXIT_THROW, "widget.new")));
        // The thread puts its own end for Thread.join (HandoffRegions.THREAD_END) just before it ends.
        e.add(describe(EventKind.HANDOFF_PUT, HandoffRegions.threadsName()));
        e.add(describe(THREAD_END, null));
        return e;
    }

    private static String describe(Event event) {
        return describe(event.kind(), event.region());
    }

    private static String describe(EventKind kind, String region) {
        return region == null ? kind.name() : kind.name() + " " + region;
    }
}
