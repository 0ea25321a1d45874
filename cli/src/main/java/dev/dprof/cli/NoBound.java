package dev.dprof.cli;

import java.util.Locale;

/**
 * How every command shows a figure that has no bound (a process whose calibration is CONTRADICTED
 * has no rate bound, so a duration of its events has no upper end; docs/BOUNDS.md, "No bound" under "Durations"):
 * {@code no bound} in text, {@code null} in JSON (the results' JSON forms, {@code ResultJson}). A
 * double that is infinite or NaN is never printed as such: "Infinity" reads as a measured figure,
 * and NaN as a bug.
 */
final class NoBound {
    /** The text form. */
    static final String TEXT = "no bound";

    private NoBound() {
    }

    /** {@code v} with {@code decimals} decimals, or {@link #TEXT} if it is not finite. */
    static String fixed(double v, int decimals) {
        return Double.isFinite(v) ? String.format(Locale.ROOT, "%." + decimals + "f", v) : TEXT;
    }
}
