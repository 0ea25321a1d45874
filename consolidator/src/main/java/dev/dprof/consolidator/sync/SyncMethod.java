package dev.dprof.consolidator.sync;

import java.util.Locale;

/**
 * Point synchronizations the DProf paper and Becker et al. compare FreeZer with. The regressions
 * (§3.5, after Duda et al. 1987) take each clock domain's clock to be linear in the reference's and
 * fit the line to the messages each way between clocks: the calibration exchanges FreeZer rests on
 * and the run's matched messages ({@link DomainClocks}); the controlled logical clock corrects what
 * the messages prove wrong.
 */
public enum SyncMethod {
    /**
     * Linear regression: every message gives a point (the domain's tick, the other clock's tick),
     * both directions in one set, and the least-squares line is the map.
     */
    LR,
    /**
     * Convex hull: the same points split by direction bound the line from above and below; the map
     * is the line through the middle of the corridor between the two hulls (at the ends of the data).
     */
    CH,
    /**
     * The controlled logical clock (Rabenseifner; Becker et al. §3–§4): clocks pre-synchronized by
     * linear offset interpolation between calibration exchanges at the run's start and end, then every
     * receive (and barrier exit) moved forward to at least its send (last enter) plus the minimum
     * latency, the jump amortized forward and backward ({@link ControlledLogicalClock}).
     */
    CLC;

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** What its timestamps rest on, in words, for every output. */
    public String assumption() {
        return switch (this) {
            case LR, CH -> "point timestamps: each clock domain taken as linear in the reference's, fitted to the "
                    + "calibration exchanges and the run's messages (" + label() + "); no bound";
            case CLC -> "point timestamps: clocks interpolated linearly between their offsets at calibration exchanges "
                    + "at the run's start and end, then corrected by the controlled logical clock (γ 0.99, amortization 2%); "
                    + "no bound";
        };
    }
}
