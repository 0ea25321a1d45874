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
 *   <li>{@link #COLLECTIVE}: a collective operation of a {@code flavour} (Becker et al. 2009, §4.1); needs a
 *       {@code key} and {@code participants}, the participant's {@code rank} where the flavour depends on ranks and
 *       the {@code root}'s rank where it has one.</li>
 *   <li>{@link #PROGRESS}: a progress point.</li>
 *   <li>{@link #HANDOFF}: a handoff between threads of one process that the YAML picks ({@code side: put|take});
 *       needs a {@code key}, may name a {@code channel}; like a receive, its take side may key by the return value.</li>
 * </ul>
 */
public enum RegionKind {
    PLAIN,
    SEND,
    RECEIVE,
    BARRIER,
    COLLECTIVE,
    PROGRESS,
    HANDOFF;

    /** The spelling used in the YAML file ({@code plain}, {@code send}, ...). */
    public String yamlName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    /** Whether regions of this kind carry a {@code channel} (send, receive and handoff). */
    public boolean hasChannel() {
        return this == SEND || this == RECEIVE || this == HANDOFF;
    }

    /** Whether regions of this kind require a {@code key} (send, receive, barrier, collective and handoff). */
    public boolean needsKey() {
        return this == SEND || this == RECEIVE || this == BARRIER || this == COLLECTIVE || this == HANDOFF;
    }

    /** Whether regions of this kind are collectives and record participants (barrier and collective). */
    public boolean isCollective() {
        return this == BARRIER || this == COLLECTIVE;
    }
}
