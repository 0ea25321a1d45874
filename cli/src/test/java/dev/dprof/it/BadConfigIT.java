package dev.dprof.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.it.ForkedJvm.Output;
import dev.dprof.it.app.CountingApp;
import dev.dprof.settings.DprofSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A bad configuration never stops the application (DESIGN.md, rule 2): it exits 0 with its
 * output intact, unprofiled, and stderr has exactly one {@code dprof:} line naming the file, the
 * line and the problem (or the system property at fault). Nothing is written.
 */
class BadConfigIT {
    static final String UNPROFILED = "; the application runs unprofiled";

    @Test
    void yamlSyntaxError(@TempDir Path tmp) throws Exception {
        Path config = ForkedJvm.config(tmp, "version: 1\nclock: rdtsc\nout: : x\n");
        String line = runUnprofiled(tmp, ForkedJvm.app(CountingApp.class, tmp).agent(config, tmp.resolve("out")));
        assertTrue(line.startsWith("dprof: " + config + ":3: YAML syntax error: ") && line.endsWith(UNPROFILED), line);
    }

    @Test
    void unknownRegionKind(@TempDir Path tmp) throws Exception {
        Path config = ForkedJvm.config(tmp, """
                regions:
                  - name: a
                    class: dev.dprof.it.app.CountingApp$Work
                    method: compute
                    kind: sned
                """);
        String line = runUnprofiled(tmp, ForkedJvm.app(CountingApp.class, tmp).agent(config, tmp.resolve("out")));
        assertEquals("dprof: " + config + ":5: regions[0].kind: unknown kind 'sned' (expected one of plain, send, "
                + "receive, barrier, collective, progress, handoff)" + UNPROFILED, line);
    }

    @Test
    void aRegionNamedLikeDprofsOwnIsRefused(@TempDir Path tmp) throws Exception {
        Path config = ForkedJvm.config(tmp, """
                regions:
                  - {name: tcp.write, class: dev.dprof.it.app.CountingApp$Work, method: compute}
                """);
        String line = runUnprofiled(tmp, ForkedJvm.app(CountingApp.class, tmp).agent(config, tmp.resolve("out")));
        assertEquals("dprof: " + config + ":2: regions[0].name: region name 'tcp.write' is taken by dprof's own TCP"
                + " send region 'tcp.write'; choose another name" + UNPROFILED, line);
    }

    @Test
    void missingConfigFile(@TempDir Path tmp) throws Exception {
        Path config = tmp.resolve("no-such.yaml");
        String line = runUnprofiled(tmp, ForkedJvm.app(CountingApp.class, tmp).agent(config, tmp.resolve("out")));
        assertEquals("dprof: " + config + ": config file not found" + UNPROFILED, line);
    }

    @Test
    void badSimulatedClockSpec(@TempDir Path tmp) throws Exception {
        Path config = ForkedJvm.config(tmp, CountingIT.YAML);
        String line = runUnprofiled(tmp, ForkedJvm.app(CountingApp.class, tmp).agent(config, tmp.resolve("out"))
                .property(DprofSettings.SIM_CLOCK_PROPERTY, "rate=x"));
        assertEquals("dprof: -Ddprof.clock.sim='rate=x': bad number for rate: 'x'" + UNPROFILED, line);
    }

    /** Runs the counting app, checks it was untouched, and returns the agent's one line. */
    private static String runUnprofiled(Path tmp, ForkedJvm jvm) throws Exception {
        Output output = jvm.args(2, 100).runOk();
        assertEquals(List.of("sum=" + CountingApp.expectedSum(2, 100)), output.stdout(), output::toString);
        assertEquals(1, output.dprofLines().size(), output::toString);
        assertFalse(Files.exists(tmp.resolve("out")), "an unprofiled run writes nothing");
        return output.dprofLines().get(0);
    }
}
