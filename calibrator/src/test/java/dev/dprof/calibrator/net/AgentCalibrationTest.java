package dev.dprof.calibrator.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.format.calibration.CalibrationFile;
import dev.dprof.format.calibration.DomainCalibration;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AgentCalibrationTest {
    @Test
    void anUnresolvableBaseIsOneLineAndNothingElse(@TempDir Path dir) throws Exception {
        List<String> lines = new CopyOnWriteArrayList<>();
        TruthClock probes = new TruthClock("rate=1.3");
        AgentCalibration calibration = AgentCalibration.start(new HostPort("no-such-host.invalid", 7100), 1,
                probes.clock, dir, lines::add).orElseThrow();
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
        try (CalibrationServer server = CalibrationServer.start(0, base.clock, Optional.empty(), line -> { })) {
            Path out = dir.resolve("calibration");
            AgentCalibration calibration = AgentCalibration.start(new HostPort("127.0.0.1", server.port()), 1,
                    probes.clock, out, lines::add).orElseThrow();
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
