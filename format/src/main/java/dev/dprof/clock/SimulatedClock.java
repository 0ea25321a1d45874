package dev.dprof.clock;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A simulated clock domain: {@code sim(t) = offset + rate·t + drift(t)} over the real tick
 * {@code t} (DESIGN.md "Simulated clocks"). Since every process on this machine shares one
 * real TSC, the truth of every simulated tick is known, and tests check bounds against it.
 *
 * <p>{@code drift} makes the relative frequency wander as a sine of amplitude {@code driftPpm}
 * and period {@code driftPeriodS}: {@code sim'(t) = rate·(1 + driftPpm·1e-6·sin(2πt/P))}, so
 * {@code drift(t) = rate·driftPpm·1e-6·P/(2π)·(1 − cos(2πt/P))}. The period is converted to real
 * ticks with {@code tscHz} (default 10⁹), which must be the same number in every process of a
 * domain — a measured rate would differ from process to process; launchers that simulate
 * machines measure it once and pass it on.
 *
 * <h2>Implementation notes</h2>
 * The linear part is exact: {@code rate} is held as a Q32.32 fixed-point number and
 * {@code rate·t} computed as a 128-bit product. Only the drift term uses doubles; its
 * derivative is far below one tick per tick, so the clock is increasing whenever
 * {@code rate ≥ 1}. The drift phase is reduced modulo the period in integers before the
 * cosine, keeping full double precision for ticks of any size.
 */
public final class SimulatedClock {
    private final long rateQ32;
    private final long offset;
    private final double driftPpm;
    private final double driftPeriodS;
    private final long tscHz;
    private final long periodTicks;
    private final double driftAmplitudeTicks;

    private SimulatedClock(long rateQ32, long offset, double driftPpm, double driftPeriodS, long tscHz) {
        if (rateQ32 <= 0) {
            throw new IllegalArgumentException("rate must be > 0");
        }
        if (driftPpm < 0 || driftPpm > 10_000) {
            throw new IllegalArgumentException("drift-ppm must be in 0..10000");
        }
        if (driftPpm > 0 && !(driftPeriodS > 0)) {
            throw new IllegalArgumentException("drift-period-s must be > 0 when drift-ppm is set");
        }
        if (tscHz <= 0) {
            throw new IllegalArgumentException("tsc-hz must be > 0");
        }
        this.rateQ32 = rateQ32;
        this.offset = offset;
        this.driftPpm = driftPpm;
        this.driftPeriodS = driftPeriodS;
        this.tscHz = tscHz;
        this.periodTicks = driftPpm > 0 ? Math.max(1, Math.round(driftPeriodS * tscHz)) : 1;
        this.driftAmplitudeTicks = rate() * driftPpm * 1e-6 * periodTicks / (2 * Math.PI);
    }

    /**
     * Parses {@code rate=1.3,offset=123456,drift-ppm=50,drift-period-s=600,tsc-hz=2.9e9}; every key
     * is optional (rate 1, offset 0, no drift, tsc-hz 1e9).
     *
     * @throws IllegalArgumentException with a one-line reason
     */
    public static SimulatedClock parse(String spec) {
        double rate = 1;
        long offset = 0;
        double ppm = 0;
        double period = 0;
        long hz = 1_000_000_000L;
        for (String part : spec.split(",")) {
            String p = part.trim();
            if (p.isEmpty()) {
                continue;
            }
            int eq = p.indexOf('=');
            if (eq < 0) {
                throw new IllegalArgumentException("expected key=value, got '" + p + "'");
            }
            String key = p.substring(0, eq).trim();
            String value = p.substring(eq + 1).trim();
            try {
                switch (key) {
                    case "rate" -> rate = Double.parseDouble(value);
                    case "offset" -> offset = Long.parseLong(value);
                    case "drift-ppm" -> ppm = Double.parseDouble(value);
                    case "drift-period-s" -> period = Double.parseDouble(value);
                    case "tsc-hz" -> hz = (long) Double.parseDouble(value);
                    default -> throw new IllegalArgumentException("unknown key '" + key
                            + "' (expected rate, offset, drift-ppm, drift-period-s, tsc-hz)");
                }
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("bad number for " + key + ": '" + value + "'");
            }
        }
        if (!(rate > 0) || rate > 1000) {
            throw new IllegalArgumentException("rate must be in (0, 1000]");
        }
        return new SimulatedClock(Math.round(rate * 4294967296.0), offset, ppm, period, hz);
    }

    /**
     * Applies the simulation to a real tick: the floor of the continuous clock
     * {@code offset + rate·t + drift(t)} — an integer reading of a continuous clock, the model
     * the calibrator's bounds are proven for.
     */
    public long apply(long realTick) {
        // floor(rateQ32 · t / 2^32) from the 128-bit product; exact for t ≥ 0.
        long high = Math.multiplyHigh(realTick, rateQ32);
        long low = realTick * rateQ32;
        long linear = (high << 32) | (low >>> 32);
        if (driftPpm == 0) {
            return offset + linear;
        }
        double fraction = (low & 0xFFFF_FFFFL) / 4294967296.0;
        return offset + linear + (long) Math.floor(fraction + drift(realTick));
    }

    /** {@code rate·A·P/(2π)·(1 − cos(2πt/P))} in ticks: the phase the frequency wander adds. */
    private double drift(long realTick) {
        double phase = 2 * Math.PI * Math.floorMod(realTick, periodTicks) / periodTicks;
        return driftAmplitudeTicks * (1 - Math.cos(phase));
    }

    public double rate() {
        return rateQ32 / 4294967296.0;
    }

    public long offset() {
        return offset;
    }

    public double driftPpm() {
        return driftPpm;
    }

    public double driftPeriodS() {
        return driftPeriodS;
    }

    public long tscHz() {
        return tscHz;
    }

    /** The canonical spec; {@code parse(spec())} gives an equal clock. */
    public String spec() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("rate", Double.toString(rate()));
        m.put("offset", Long.toString(offset));
        if (driftPpm > 0) {
            m.put("drift-ppm", Double.toString(driftPpm));
            m.put("drift-period-s", Double.toString(driftPeriodS));
        }
        m.put("tsc-hz", Long.toString(tscHz));
        StringBuilder sb = new StringBuilder();
        m.forEach((k, v) -> sb.append(sb.length() == 0 ? "" : ",").append(k).append('=').append(v));
        return sb.toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SimulatedClock c && c.spec().equals(spec());
    }

    @Override
    public int hashCode() {
        return spec().hashCode();
    }

    @Override
    public String toString() {
        return spec();
    }
}
