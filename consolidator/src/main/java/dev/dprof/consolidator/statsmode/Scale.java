package dev.dprof.consolidator.statsmode;

import java.math.BigInteger;
import org.apache.commons.numbers.fraction.BigFraction;

/**
 * What one tick of each process is worth in the unit of the figures: exact bounds {@code [low, high]}
 * per process index (an unknown upper bound is null). With the consolidator's rate bounds the figures
 * are proofs on the reference clock; at a process's nominal rate they are bounds on its own ticks, shown
 * in nanoseconds.
 */
public record Scale(BigFraction[] low, BigFraction[] high) {

    /** Every process at one exact rate {@code perTick} (a point). */
    public static Scale point(BigFraction[] perTick) {
        return new Scale(perTick, perTick);
    }

    BigFraction lo(int process, BigInteger ticks) {
        return ticks.signum() <= 0 ? BigFraction.ZERO : low[process].multiply(ticks);
    }

    /** Null (infinite) when the process's rate has no upper bound. */
    BigFraction hi(int process, BigInteger ticks) {
        if (ticks.signum() <= 0) {
            return BigFraction.ZERO;
        }
        return high[process] == null ? null : high[process].multiply(ticks);
    }
}
