package dev.dprof.calibrator.estimate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.format.calibration.DomainCalibration;
import dev.dprof.format.calibration.Zero;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A wander that every stretch of three zeros lets through: the zeros of a test-bed run
 * ({@code testbed calibrate --machines 2 --seconds 12 --interval-sec 4 --drift-ppm 200
 * --drift-period-s 4 --seed 4}, a simulated clock whose frequency changes by up to 314 ppm/s),
 * five zeros 1.2–4.8 s apart. Each three of them fit a curve within {@code bounded:1}; all five do
 * not, and the windows between neighbouring zeros, checked by threes alone, missed 9 441 of 16 480
 * test ticks by up to 141 µs while the quality said {@code BOUNDED}.
 */
class LongStretchTest {
    private static final List<Zero> ZEROS = List.of(
            new Zero(0, 4196622724925L, 3282485585351L, 4196623326376L),
            new Zero(1, 4212815929259L, 3297823082797L, 4212816346619L),
            new Zero(2, 4222331812505L, 3306836065014L, 4222332104308L),
            new Zero(3, 4228303243417L, 3312491736983L, 4228303502555L),
            new Zero(4, 4232373577728L, 3316346673142L, 4232373736166L));

    @Test
    void fiveZerosRefuteWhatEveryThreeOfThemAdmit() throws CalibrationException {
        DomainCalibration ref = new DomainCalibration("ref", Optional.empty(), "h", "rdtsc", 3.170063143058528E9,
                Optional.empty(), List.of(), true);
        DomainCalibration node = new DomainCalibration("node", Optional.of("ref"), "h", "rdtsc", 3.3528549274207115E9,
                Optional.empty(), ZEROS, true);
        CalibrationSet set = CalibrationSet.of(List.of(ref, node), new DriftModel.BoundedDrift(1));
        DomainConversion conversion = set.conversion("node").orElseThrow();

        // ρ·F/f with F below the mean rate (0.947) and so below the model's: a fit here is a fit under it
        double curvature = 1e-6 * 0.94 / 3.3528549274207115E9;
        for (int first = 0; first + DriftCheck.ZEROS <= ZEROS.size(); first++) {
            assertTrue(DriftCheck.consistent(ZEROS, first, first + DriftCheck.ZEROS - 1, List.of(), curvature),
                    "three zeros from " + first + " fit: the wander hides from a check by threes");
        }
        assertEquals(Quality.CONTRADICTED, set.quality("node"), () -> conversion.contradiction().orElse(""));
        assertTrue(conversion.contradiction().orElseThrow().contains("epochs 0–4"), conversion.contradiction()::get);
        TickConverter converter = set.converter("node");
        assertTrue(!converter.convert(4212816346619L + 1_000_000_000L), "no tick of the domain gets a bound");
    }

    @Test
    void theReportCountsTheStretchesItCheckedAndThoseThatFailed() throws CalibrationException {
        DomainCalibration ref = new DomainCalibration("ref", Optional.empty(), "h", "rdtsc", 3.170063143058528E9,
                Optional.empty(), List.of(), true);
        DomainCalibration node = new DomainCalibration("node", Optional.of("ref"), "h", "rdtsc", 3.3528549274207115E9,
                Optional.empty(), ZEROS, true);
        CalibrationReport.Domain refuted = CalibrationReport.of(CalibrationSet.of(List.of(ref, node),
                new DriftModel.BoundedDrift(1))).stream().filter(d -> d.domain().equals("node")).findFirst().orElseThrow();
        // five zeros: the stretches 0–2, 0–3, 0–4, 1–3, 1–4, 2–4; no window is built once the model is refuted
        assertEquals(6, refuted.stretches());
        assertTrue(refuted.contradictedStretches() >= 1 && refuted.contradictedStretches() <= refuted.stretches(),
                refuted::toString);

        CalibrationReport.Domain admitted = CalibrationReport.of(CalibrationSet.of(List.of(ref, node),
                new DriftModel.BoundedDrift(1024))).stream().filter(d -> d.domain().equals("node")).findFirst().orElseThrow();
        // the six stretches pass and four windows between neighbouring zeros are built
        assertEquals("BOUNDED", admitted.quality());
        assertEquals(6 + 4, admitted.stretches());
        assertEquals(0, admitted.contradictedStretches());
    }
}
