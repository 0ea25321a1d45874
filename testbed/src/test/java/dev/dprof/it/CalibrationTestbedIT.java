package dev.dprof.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.dprof.calibrator.estimate.CalibrationSet;
import dev.dprof.calibrator.estimate.DriftModel;
import dev.dprof.calibrator.estimate.TickConverter;
import dev.dprof.clock.SimulatedClock;
import dev.dprof.format.calibration.DomainCalibration;
import dev.dprof.it.ForkedJvm.Output;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code dprof testbed calibrate} end to end, with real JVMs: one {@code serve} and several
 * {@code join}s with simulated clocks, calibrating over UDP, their test ticks converted and
 * checked against the truth. Every bounded tick must be contained — exactly, not 99.9% — also
 * through a path with loss, duplication, jitter and one-way delay while the clocks drift (inside
 * the default drift assumption). Timing figures are not asserted: they depend on this host's load.
 *
 * <p>Beyond the test bed's own verdict, the first test re-checks every tick independently: it
 * reads the tick files itself and converts tick by tick ({@link TickConverter#convert}), where the
 * test bed uses the bulk path.
 */
class CalibrationTestbedIT {
    @Test
    void driftingClocksThroughABadPathAreAlwaysContained(@TempDir Path tmp) throws Exception {
        Path run = tmp.resolve("run");
        JsonNode json = testbed(tmp, run, "--machines", 4, "--seconds", 15, "--drift-ppm", 50, "--drift-period-s", 600,
                "--loss", 0.3, "--duplicate", 0.1, "--jitter-us", 100, "--delay-us", 500, "--asymmetric");
        assertAllContained(json, 3);
        assertTrue(json.get("checked").asLong() >= 10_000, () -> "checked: " + json);
        JsonNode relays = json.get("relays");
        assertTrue(relays.get("dropped").asLong() > 0 && relays.get("duplicated").asLong() > 0, relays::toString);
        assertEquals(json.get("checked").asLong(), recheck(run), "ticks bounded when re-checked tick by tick");
    }

    @Test
    void directPathWithoutDriftIsAlwaysContained(@TempDir Path tmp) throws Exception {
        JsonNode json = testbed(tmp, tmp.resolve("run"), "--machines", 3, "--seconds", 6);
        assertAllContained(json, 2);
        assertTrue(json.get("checked").asLong() > 0, json::toString);
    }

    /**
     * A forger: on each join's path, answering every ping first with the reference's tick
     * shifted by 2·10⁶. With the run key its pongs are rejected and the joins' bounds all hold;
     * without a key every ping is answered twice, no zero is kept, and no tick has a bound. Either
     * way nothing is missed.
     */
    @Test
    void aForgerIsRejectedWithAKeyAndLeavesNoZeroWithout(@TempDir Path tmp) throws Exception {
        Path keyed = Files.createDirectories(tmp.resolve("keyed"));
        JsonNode withKey = testbed(keyed, keyed.resolve("run"), "--machines", 2, "--seconds", 5,
                "--forger-shift-ticks", 2_000_000);
        assertEquals(0, withKey.get("missed").asLong(), withKey::toString);
        assertEquals("BOUNDED", withKey.get("quality").asText(), withKey::toString);
        assertEquals(withKey.get("checked").asLong(), withKey.get("contained").asLong(), withKey::toString);
        long forged = withKey.get("setup").get("forgers").get("forged").asLong();
        assertTrue(forged > 0 && withKey.get("rejectedPackets").asLong() >= forged - 1, withKey::toString);
        assertTrue(Files.exists(keyed.resolve("run").resolve("calibration.key")), "the run key");

        Path open = Files.createDirectories(tmp.resolve("open"));
        JsonNode without = testbed(open, open.resolve("run"), "--machines", 2, "--seconds", 5,
                "--forger-shift-ticks", 2_000_000, "--insecure");
        assertEquals(0, without.get("missed").asLong(), without::toString);
        assertEquals(0, without.get("checked").asLong(), without::toString);
        assertTrue(without.get("unbounded").asLong() > 0, without::toString);
        assertEquals("ABSENT", without.get("quality").asText(), without::toString);
    }

    private static JsonNode testbed(Path tmp, Path run, Object... args) throws Exception {
        Path jsonFile = tmp.resolve("testbed.json");
        Object[] all = Stream.concat(Stream.of("testbed", "calibrate", "--out", run, "--json", jsonFile),
                Stream.of(args)).toArray();
        Output output = ForkedJvm.dprof(tmp, all).runOk();
        JsonNode json = new ObjectMapper().readTree(jsonFile.toFile());
        assertEquals(0, json.get("notContained").size(), () -> "not contained\n" + output);
        return json;
    }

    private static void assertAllContained(JsonNode json, int joins) {
        assertEquals(joins + 1, json.get("domains").asInt(), json::toString);
        assertEquals(joins, json.get("checkedDomains").asInt(), json::toString);
        assertEquals(json.get("checked").asLong(), json.get("contained").asLong(), json::toString);
        assertEquals(0, json.get("unbounded").asLong(), json::toString);
        assertEquals("BOUNDED", json.get("quality").asText(), json::toString);
        assertEquals(0, json.get("rejectedPackets").asLong(), json::toString);
        for (JsonNode d : json.get("perDomain")) {
            assertTrue(d.get("checked").asLong() > 0, d::toString);
            assertEquals(d.get("checked").asLong(), d.get("contained").asLong(), d::toString);
        }
        for (String field : List.of("minRttNs", "spanSec", "floorPpm")) {
            assertTrue(json.get(field).asDouble() > 0, () -> field + " in " + json);
        }
        assertTrue(json.get("intervalWidthNs").get("median").asDouble() > 0, json::toString);
        assertTrue(json.get("freqWidthPpm").get("max").asDouble() > 0, json::toString);
    }

    /** Converts every test tick one at a time and checks it against the truth; returns how many were bounded. */
    private static long recheck(Path run) throws Exception {
        CalibrationSet set = CalibrationSet.load(List.of(run.resolve("cal")),
                new DriftModel.BoundedDrift(DriftModel.DEFAULT_PPM_PER_SECOND));
        DomainCalibration reference = set.domains().stream().filter(DomainCalibration::isReference).findFirst()
                .orElseThrow();
        SimulatedClock truth = SimulatedClock.parse(reference.simulatedClock().orElseThrow());
        long bounded = 0;
        List<Path> files;
        try (Stream<Path> list = Files.list(run.resolve("ticks"))) {
            files = list.sorted().toList();
        }
        for (Path file : files) {
            try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file)))) {
                assertEquals("dprof-testbed-ticks 1", in.readUTF());
                TickConverter converter = set.converter(in.readUTF());
                while (true) {
                    long tick;
                    long real;
                    try {
                        tick = in.readLong();
                        real = in.readLong();
                    } catch (EOFException end) {
                        break;
                    }
                    if (converter.convert(tick)) {
                        bounded++;
                        long t = truth.apply(real);
                        assertTrue(converter.lo() <= t && t <= converter.hi(), () -> file + ": tick " + tick
                                + " -> [" + converter.lo() + ", " + converter.hi() + "], truth " + t);
                    }
                }
            } catch (IOException e) {
                throw new AssertionError(file + ": " + e, e);
            }
        }
        return bounded;
    }
}
