package dev.dprof.calibrator.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.format.calibration.CalibrationFile;
import dev.dprof.format.calibration.DomainCalibration;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AgentCalibrationTest {
    private static final SharedKey KEY = SharedKey.of("agent-test-key-of-32-bytes-00000".getBytes(StandardCharsets.UTF_8));

    @Test
    void anUnresolvableBaseIsOneLineAndNothingElse(@TempDir Path dir) throws Exception {
        List<String> lines = new CopyOnWriteArrayList<>();
        TruthClock probes = new TruthClock("rate=1.3");
        AgentCalibration calibration = AgentCalibration.start(new HostPort("no-such-host.invalid", 7100), 1,
                Optional.empty(), probes.clock, dir, lines::add, t -> { }).orElseThrow();
        Nodes.await("the failure line", () -> !lines.isEmpty());
        calibration.stop();
        assertEquals(1, lines.size(), lines.toString());
        assertTrue(lines.get(0).contains("cannot resolve") && lines.get(0).contains("application runs on"),
                lines.get(0));
    }

    @Test
    void theProbesDomainIsCalibratedIntoTheRunDirectory(@TempDir Path dir) throws Exception {
        List<String> lines = new CopyOnWriteArrayList<>();
        TruthClock base = new TruthClock("rate=1.0");
        TruthClock probes = new TruthClock("rate=1.3,offset=99");
        try (CalibrationServer server = CalibrationServer.start(0, base.clock, Optional.of(KEY), line -> { })) {
            Path out = dir.resolve("calibration");
            AgentCalibration calibration = AgentCalibration.start(new HostPort("127.0.0.1", server.port()), 1,
                    Optional.of(KEY), probes.clock, out, lines::add, t -> { }).orElseThrow();
            if (calibration.awaitFirstExchange()) {
                // The exchange before main: its zero is on disk when the start stops waiting.
                assertEquals(1, zeros(out), "the first exchange's zero");
            }
            Nodes.await("the first zero", () -> zeros(out) >= 1);
            calibration.stop();
            calibration.stop();
            DomainCalibration cal = CalibrationFile.read(only(out));
            assertEquals(probes.clock.domainId(), cal.domainId());
            assertEquals(Optional.of(base.clock.domainId()), cal.parentDomainId());
            assertTrue(cal.complete());
            cal.zeros().forEach(z -> TruthClock.assertSound(z, probes, base));
            assertEquals(1, lines.size(), lines.toString());
            assertTrue(lines.get(0).startsWith("calibrating against 127.0.0.1:"), lines.get(0));
        }
    }

    @Test
    void anUnreachableBaseNeverHoldsTheStartBackAndAWrongKeyGetsNoZero(@TempDir Path dir) throws Exception {
        List<String> lines = new CopyOnWriteArrayList<>();
        TruthClock base = new TruthClock("rate=1.0");
        TruthClock probes = new TruthClock("rate=1.3,offset=99");
        SharedKey other = SharedKey.of("another-key-of-32-bytes-00000000".getBytes(StandardCharsets.UTF_8));
        try (CalibrationServer server = CalibrationServer.start(0, base.clock, Optional.of(other), line -> { })) {
            Path out = dir.resolve("calibration");
            long t0 = System.nanoTime();
            AgentCalibration calibration = AgentCalibration.start(new HostPort("127.0.0.1", server.port()), 1,
                    Optional.of(KEY), probes.clock, out, lines::add, t -> { }).orElseThrow();
            assertFalse(calibration.awaitFirstExchange(), "a base that rejects every packet gives no exchange");
            // Bounded by the start's wait, not by the join's seconds of hellos; the slack is only for a loaded host.
            assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(2), "the start waited too long");
            Nodes.await("the retry line", () -> !lines.isEmpty());
            calibration.stop();
            assertTrue(lines.get(0).contains("no answer") && lines.get(0).contains("same key"), lines.toString());
            assertEquals(0, zeros(out));
            assertTrue(server.rejected(MalformedPacketException.Reason.AUTH) > 0, server.counts());
        }
    }

    private static Path only(Path dir) throws Exception {
        try (Stream<Path> files = Files.list(dir)) {
            List<Path> cal = files.filter(p -> p.toString().endsWith(CalibrationFile.SUFFIX)).toList();
            assertEquals(1, cal.size(), cal.toString());
            return cal.get(0);
        }
    }

    private static long zeros(Path dir) {
        try {
            return Files.isDirectory(dir) ? CalibrationFile.read(only(dir)).zeros().size() : 0;
        } catch (Exception | AssertionError e) {
            return 0;
        }
    }
}
