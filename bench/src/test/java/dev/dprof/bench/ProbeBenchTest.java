package dev.dprof.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.dprof.agent.bootstrap.NativeLibrary;
import dev.dprof.settings.DprofSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import jdk.jfr.Recording;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The benchmark code paths, quickly and without JMH: the targets run, the limit ring fills, the
 * JFR recording takes the event, and — with the real agent, when agent/jar/target/dprof.jar exists —
 * the disk run weaves, records every event, reads them back and measures its queue.
 */
class ProbeBenchTest {

    @Test
    void targetsRunWithoutTheAgent() {
        ProbeTargets.plain();
        ProbeTargets.instrumented();
    }

    @Test
    void limitStoresOneTickAndHeaderPerEvent() {
        assumeTrue(NativeLibrary.load(), NativeLibrary.message());
        ProbeBench.checkNativeClock();
        long before = ProbeTargets.limitCursor;
        ProbeTargets.limit();
        assertEquals(before + 2, ProbeTargets.limitCursor);
        int enter = (int) (before & (ProbeTargets.LIMIT_EVENTS - 1)) << 1;
        int exit = (int) ((before + 1) & (ProbeTargets.LIMIT_EVENTS - 1)) << 1;
        assertTrue(ProbeTargets.LIMIT_RING[enter] > 0);
        assertTrue(ProbeTargets.LIMIT_RING[exit] >= ProbeTargets.LIMIT_RING[enter]);
        assertEquals(3 | 1 << 8, ProbeTargets.LIMIT_RING[enter + 1]);
        assertEquals(4 | 1 << 8, ProbeTargets.LIMIT_RING[exit + 1]);
    }

    @Test
    void jfrRecordingTakesTheEvent() {
        Recording r = ProbeBench.startJfr();
        try {
            assertTrue(new BenchEvent().isEnabled());
            ProbeTargets.jfr();
        } finally {
            r.stop();
            r.close();
        }
    }

    @Test
    void configSelectsOnlyTheInstrumentedMethod(@TempDir Path dir) throws Exception {
        List<String> yaml = Files.readAllLines(ProbeConfig.write(dir));
        assertTrue(yaml.contains("    class: dev.dprof.bench.ProbeTargets"), yaml.toString());
        assertTrue(yaml.contains("    method: instrumented"), yaml.toString());
        assertTrue(yaml.contains("annotations: false"), yaml.toString());
    }

    @Test
    void figuresAreDifferencesPerEvent() {
        ProbeCommand.Value plain = new ProbeCommand.Value(2, 0.3);
        ProbeCommand.Value instrumented = new ProbeCommand.Value(22, 0.4);
        ProbeCommand.Value probe = instrumented.minus(plain).div(2);
        assertEquals(10, probe.value(), 1e-9);
        assertEquals(0.25, probe.error(), 1e-9);
    }

    @Test
    void diskRunWithTheRealAgentLosesNothing(@TempDir Path dir) throws Exception {
        Optional<Path> jar = DprofSettings.agentJar();
        assumeTrue(jar.isPresent() && Files.isRegularFile(jar.get()), "agent/jar/target/dprof.jar not built");
        Path yaml = ProbeConfig.write(dir);
        DiskRun.Result r = DiskRun.run(jar.get(), yaml, Files.createDirectories(dir.resolve("out")), 20_000);
        assertTrue(r.complete(), r.queue());
        assertEquals(40_000, r.regionEvents(), r.queue());
        assertEquals(0, r.lostEvents());
        assertTrue(r.events() >= 40_000, r.queue());
        assertTrue(r.allocatedBytes() > 0);
        assertTrue(r.bytesPerEvent() > 0, Map.of("allocated", r.allocatedBytes(), "events", r.events()).toString());
    }
}
