package dev.dprof.agent.config;

/**
 * What a profiled region stands for ({@code kind:} of a region in the YAML file).
 *
 * <ul>
 *   <li>{@link #PLAIN}: an ordinary timed region (the default).</li>
 *   <li>{@link #SEND}: the region sends a message; needs a {@code key}, may name a {@code channel}.</li>
 *   <li>{@link #RECEIVE}: the region receives a message; needs a {@code key}, may name a {@code channel}, and is the
 *       only kind whose {@code key} may be the return value.</li>
 *   <li>{@link #BARRIER}: a barrier; needs a {@code key} (the barrier instance) and {@code participants}.</li>
 *   <li>{@link #PROGRESS}: a progress point.</li>
 * </ul>
 */
public enum RegionKind {
    PLAIN,
    SEND,
    RECEIVE,
    BARRIER,
    PROGRESS;

    /** The spelling used in the YAML file ({@code plain}, {@code send}, ...). */
    public String yamlName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    /** Whether regions of this kind carry a message {@code channel} (send and receive). */
    public boolean hasChannel() {
        return this == SEND || this == RECEIVE;
    }

    /** Whether regions of this kind require a {@code key} (send, receive and barrier). */
    public boolean needsKey() {
        return this == SEND || this == RECEIVE || this == BARRIER;
    }
}
