package dev.dprof.format;

import java.util.Locale;

/**
 * The physical range of a clock's nominal tick rate, checked wherever a rate enters (a queue's
 * process header, a calibration file): a rate of 0, NaN, infinite or absurd would turn every
 * duration into Infinity or NaN downstream, so it is refused where it is read, naming the source.
 * The range is generous — a 1 kHz counter to a 100 GHz one — since simulated clocks scale the
 * real TSC's rate.
 */
public final class TickRate {
    public static final double MIN_HZ = 1e3;
    public static final double MAX_HZ = 1e11;

    private TickRate() {
    }

    /** Null if {@code hz} is a physical tick rate; else why not, as words. */
    public static String problem(double hz) {
        if (Double.isFinite(hz) && hz >= MIN_HZ && hz <= MAX_HZ) {
            return null;
        }
        return String.format(Locale.ROOT, "tick rate %s Hz is outside the physical range [%.0e, %.0e] Hz",
                Double.toString(hz), MIN_HZ, MAX_HZ);
    }
}
