package dev.dprof.consolidator.analysis.stats;

import dev.dprof.consolidator.profile.ProfileException;
import dev.dprof.consolidator.profile.ProfileInfo;
import java.math.BigInteger;
import java.util.List;
import org.apache.commons.numbers.fraction.BigFraction;

/**
 * What each process contributes to a duration: the exact bounds on its clock's rate relative to
 * the reference ({@code slopeLow/slopeHigh}), its probe cost, its calibration quality; and the
 * exact, outward-rounded arithmetic the figures need. An unknown rate (a calibration the drift
 * assumption contradicts) has the lower bound 0 and no upper bound ({@code null} here, infinity
 * in a {@link Bound}).
 */
public final class Rates {
    /** Probe cost unit: the header stores the cost in ticks × 1024. */
    static final int COST_SCALE = 1024;
    private static final List<String> QUALITY_ORDER =
            List.of("REFERENCE", "BOUNDED", "SINGLE_ZERO", "PARTIAL", "CONTRADICTED", "ABSENT");

    public final BigFraction[] low;
    public final BigFraction[] high;
    final long[] costX1024;
    public final String[] quality;
    final String[] label;

    public Rates(ProfileInfo info) throws ProfileException {
        int n = info.processes().size();
        low = new BigFraction[n];
        high = new BigFraction[n];
        costX1024 = new long[n];
        quality = new String[n];
        label = new String[n];
        for (ProfileInfo.Process p : info.processes()) {
            int i = p.index();
            if (i < 0 || i >= n) {
                throw new ProfileException("process index " + i + " out of range (" + n + " processes)");
            }
            if (p.slopeLow() == null || p.slopeHigh() == null) {
                low[i] = BigFraction.ZERO;
                high[i] = null;
            } else {
                low[i] = parse(p.slopeLow(), "slopeLow of process " + i);
                high[i] = parse(p.slopeHigh(), "slopeHigh of process " + i);
                if (low[i].signum() < 0 || high[i].compareTo(low[i]) < 0) {
                    throw new ProfileException("process " + i + ": slope bounds [" + p.slopeLow() + ", "
                            + p.slopeHigh() + "] are not an interval of rates");
                }
            }
            double cost = p.probeCostTicks();
            costX1024[i] = Double.isFinite(cost) && cost > 0 ? Math.round(cost * COST_SCALE) : 0;
            quality[i] = p.quality() == null ? "ABSENT" : p.quality();
            label[i] = p.host() + "-" + p.pid();
        }
    }

    /** Parses {@code "num/den"} (or an integer) exactly. */
    static BigFraction parse(String s, String what) throws ProfileException {
        try {
            int slash = s.indexOf('/');
            if (slash < 0) {
                return BigFraction.of(new BigInteger(s.trim()));
            }
            return BigFraction.of(new BigInteger(s.substring(0, slash).trim()), new BigInteger(s.substring(slash + 1).trim()));
        } catch (RuntimeException e) {
            throw new ProfileException(what + ": not a rational 'num/den': '" + s + "'");
        }
    }

    /** {@code k × s}, null (infinite) when {@code s} is unknown and {@code k ≠ 0}. */
    static BigFraction times(BigInteger k, BigFraction s) {
        if (k.signum() == 0) {
            return BigFraction.ZERO;
        }
        return s == null ? null : s.multiply(k);
    }

    static BigFraction times(long k, BigFraction s) {
        return times(BigInteger.valueOf(k), s);
    }

    /** A sum where null is infinity. */
    static BigFraction plus(BigFraction a, BigFraction b) {
        return a == null || b == null ? null : a.add(b);
    }

    /** The lower of two, null being infinity. */
    static BigFraction min(BigFraction a, BigFraction b) {
        if (a == null) {
            return b;
        }
        return b == null || a.compareTo(b) <= 0 ? a : b;
    }

    /** The higher of two, null being infinity. */
    static BigFraction max(BigFraction a, BigFraction b) {
        return a == null || b == null ? null : a.compareTo(b) >= 0 ? a : b;
    }

    /** The largest double not above {@code f}. */
    public static double down(BigFraction f) {
        double d = f.doubleValue();
        return BigFraction.from(d).compareTo(f) > 0 ? Math.nextDown(d) : d;
    }

    /** The smallest double not below {@code f}; infinity for null. */
    public static double up(BigFraction f) {
        if (f == null) {
            return Double.POSITIVE_INFINITY;
        }
        double d = f.doubleValue();
        return BigFraction.from(d).compareTo(f) < 0 ? Math.nextUp(d) : d;
    }

    static Bound bound(BigFraction lo, BigFraction hi) {
        return new Bound(down(lo), up(hi));
    }

    /** The worse of two calibration qualities (unknown names count as worst). */
    public static String worse(String a, String b) {
        if (a == null) {
            return b;
        }
        if (b == null) {
            return a;
        }
        int ia = rank(a);
        int ib = rank(b);
        return ia >= ib ? a : b;
    }

    private static int rank(String q) {
        int i = QUALITY_ORDER.indexOf(q);
        return i < 0 ? QUALITY_ORDER.size() : i;
    }
}
