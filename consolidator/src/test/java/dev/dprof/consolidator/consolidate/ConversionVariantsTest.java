package dev.dprof.consolidator.consolidate;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.synthetic.Consolidated;
import dev.dprof.synthetic.SyntheticRun;
import dev.dprof.format.profile.ProfileEvent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The benchmark's copy of the pipeline is the product's: same bytes in sound mode; point mode is a plain line. */
class ConversionVariantsTest {

    @Test
    void soundModeWritesTheProductsBytes(@TempDir Path dir) throws Exception {
        SyntheticRun.Result run = SyntheticRun.generate(SyntheticRun.Spec.of(3, 2, 10, 10_000, 51).drift(50), dir);
        Consolidated product = Consolidated.of(run, dir.resolve("product"), "bounded:1");
        long written = ConversionVariants.run(run.runDir(), run.calibrationDir(), dir.resolve("copy"), "sound", "bounded:1");
        assertEquals(product.info().events(), written);
        assertArrayEquals(Files.readAllBytes(dir.resolve("product").resolve(Profile.EVENTS)),
                Files.readAllBytes(dir.resolve("copy").resolve(Profile.EVENTS)));
    }

    @Test
    void pointModeIsAnUnsoundLineButKeepsTheCausalOrder(@TempDir Path dir) throws Exception {
        SyntheticRun.Result run = SyntheticRun.generate(SyntheticRun.Spec.of(3, 2, 10, 10_000, 52), dir);
        long written = ConversionVariants.run(run.runDir(), run.calibrationDir(), dir.resolve("point"), "point", "bounded:1");
        assertEquals(run.events(), written);
        List<ProfileEvent> events = Consolidated.readAll(Profile.open(dir.resolve("point")));
        long missed = events.stream().filter(e -> e.truth != e.lo).count();
        assertTrue(events.stream().allMatch(e -> e.lo == e.hi), "points");
        // Off by a few µs from the truth: close, with nothing to say how close.
        assertTrue(events.stream().allMatch(e -> Math.abs(e.truth - e.lo) < 1_000_000), "within ~250 µs");
        assertTrue(missed > events.size() / 2, "a point is almost never the truth: " + missed);
        assertEquals(0, Profile.open(dir.resolve("point")).info().causalityConflicts());
    }
}
