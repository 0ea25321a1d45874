package dev.dprof.consolidator.analysis.stats;

import java.math.BigInteger;

/** An exact sum of longs: a long while it fits, spilling into a {@link BigInteger} on overflow. */
final class WideSum {
    private long small;
    private BigInteger big = BigInteger.ZERO;

    void add(long v) {
        long r = small + v;
        if (((small ^ r) & (v ^ r)) < 0) {
            big = big.add(BigInteger.valueOf(small));
            small = v;
        } else {
            small = r;
        }
    }

    BigInteger value() {
        return big.add(BigInteger.valueOf(small));
    }
}
