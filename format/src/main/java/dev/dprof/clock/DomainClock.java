package dev.dprof.clock;

import dev.dprof.settings.DprofSettings;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * The one clock model every reader of time goes through (DESIGN.md "Simulated clocks"): a raw
 * counter (the JNI TSC read or {@code System.nanoTime}) and, when this "machine" is simulated,
 * the transformation {@link SimulatedClock#apply}. The agent and the calibrator of one machine
 * build it from the same settings and so name and read the same domain.
 */
public final class DomainClock {
    private final ClockSource source;
    private final LongSupplier raw;
    private final Optional<SimulatedClock> simulated;
    private final String domainId;

    public DomainClock(ClockSource source, LongSupplier raw, Optional<SimulatedClock> simulated) {
        this.source = source;
        this.raw = raw;
        this.simulated = simulated;
        this.domainId = ClockDomain.id(source, simulated);
    }

    /** The simulated clock configured for this process ({@link DprofSettings#simulatedClock()}). */
    public static Optional<SimulatedClock> simulatedFromEnvironment() {
        Optional<DprofSettings.Value> spec = DprofSettings.simulatedClock();
        if (spec.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(SimulatedClock.parse(spec.get().value()));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(spec.get().origin() + "='" + spec.get().value() + "': " + e.getMessage(), e);
        }
    }

    /** The current tick of this domain. */
    public long now() {
        long t = raw.getAsLong();
        return simulated.isPresent() ? simulated.get().apply(t) : t;
    }

    /** The raw (real) counter, the truth under a simulated clock. */
    public long raw() {
        return raw.getAsLong();
    }

    public ClockSource source() {
        return source;
    }

    public Optional<SimulatedClock> simulated() {
        return simulated;
    }

    public String domainId() {
        return domainId;
    }
}
