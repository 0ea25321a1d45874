package dev.dprof.calibrator.estimate;

import java.util.Locale;

/**
 * What is assumed about a clock between two zeros — nothing else bounds it there (DESIGN.md
 * "Drift"). Every result names the model it rests on.
 */
public sealed interface DriftModel {
    /** The default bound on how fast relative frequency changes: 1 ppm per second. */
    double DEFAULT_PPM_PER_SECOND = 1.0;

    /** One line in the assumption's words, printed beside every bound. */
    String describe();

    /**
     * The paper's assumption (DProf Eq. 2): the relative frequency is constant over the whole
     * run. All zeros then constrain one line; data that no line fits are reported as a
     * contradiction, never bounded.
     */
    record Constant() implements DriftModel {
        @Override
        public String describe() {
            return "constant relative frequency over the run (DProf Eq. 2)";
        }
    }

    /**
     * The relative frequency {@code F} changes by at most {@code ppmPerSecond}·10⁻⁶·F per second
     * of the node's nominal clock (a bounded second derivative of the conversion). Between two
     * neighbouring zeros the true conversion then stays within {@code D·|x−x₁|·|x−x₂|/2} of the
     * chord through them, {@code D} the bound on its curvature; bounds are widened by exactly that.
     * The default ({@value DriftModel#DEFAULT_PPM_PER_SECOND} ppm/s) is far above what crystal
     * oscillators do under temperature change, while costing only microseconds of width between
     * zeros ten seconds apart.
     */
    record BoundedDrift(double ppmPerSecond) implements DriftModel {
        /** The largest bound accepted, ppm/s. */
        public static final double MAX_PPM_PER_SECOND = 1e4;

        public BoundedDrift {
            if (!(ppmPerSecond > 0) || ppmPerSecond > MAX_PPM_PER_SECOND) {
                throw new IllegalArgumentException("drift bound must be in (0, 10000] ppm/s: " + ppmPerSecond);
            }
        }

        @Override
        public String describe() {
            return String.format(Locale.ROOT, "relative frequency changes by at most %s ppm/s (bounded drift)",
                    ppmPerSecond);
        }
    }
}
