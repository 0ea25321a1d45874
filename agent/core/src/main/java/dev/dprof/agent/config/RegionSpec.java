package dev.dprof.agent.config;

import dev.dprof.format.CollectiveFlavour;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * One entry of {@code regions:}: which methods to weave and what the region means.
 *
 * <p>The loader guarantees the cross-field rules of the file format, so code downstream may rely on them:
 * <ul>
 *   <li>{@code classPattern} and {@code methodPattern} compile with {@link ClassPattern#forClass} and
 *       {@link ClassPattern#forMethod}; {@code descriptor}, when present, is a valid JVM method descriptor.</li>
 *   <li>{@code channel} is present exactly for {@link RegionKind#SEND} and {@link RegionKind#RECEIVE}; when the file
 *       names none it is {@code Const(name)}, the constant channel named after the region.</li>
 *   <li>{@code key} is present exactly for send, receive, barrier and collective.</li>
 *   <li>{@code participants} is present exactly for barrier and collective; it is never {@link ValueSource.Return},
 *       and when it is a {@link ValueSource.Const} its text is a positive decimal {@code int}.</li>
 *   <li>{@code collective} is present exactly for {@link RegionKind#COLLECTIVE}: its {@code rank} is present exactly
 *       when the flavour is ranked, its {@code root} exactly when it is rooted; neither is {@link ValueSource.Return},
 *       and a {@link ValueSource.Const} is a non-negative decimal {@code int}.</li>
 *   <li>{@code instance}, when present, is an {@link ValueSource.Arg} or a {@link ValueSource.Property}.</li>
 *   <li>{@link ValueSource.Return} appears only as the {@code key} of a receive region or of a handoff's take.</li>
 *   <li>{@code side} is present exactly for {@link RegionKind#HANDOFF}.</li>
 *   <li>{@code id}, when present, is in 1..{@value #MAX_ID}.</li>
 * </ul>
 *
 * @param name          the region's unique, non-empty name
 * @param classPattern  the class glob ({@code class:})
 * @param methodPattern the method-name glob ({@code method:}); {@code <init>} selects constructors
 * @param descriptor    the JVM method descriptor, if the file restricts the overloads
 * @param kind          what the region stands for
 * @param id            the explicit region id, if given
 * @param channel       send/receive: where the channel comes from
 * @param key           send/receive: the message key; barrier: the barrier instance key
 * @param participants  barrier: how many parties the barrier has
 * @param instance      the dynamic region id (per call from an argument, or once from a system property)
 * @param line          the 1-based line of the YAML file where this entry starts
 * @param collective    collective: its flavour, and where the rank and the root come from
 * @param side          handoff: whether the method puts (recorded on entry) or takes (on exit)
 */
public record RegionSpec(
        String name,
        String classPattern,
        String methodPattern,
        Optional<String> descriptor,
        RegionKind kind,
        OptionalInt id,
        Optional<ValueSource> channel,
        Optional<ValueSource> key,
        Optional<ValueSource> participants,
        Optional<ValueSource> instance,
        int line,
        Optional<Collective> collective,
        Optional<HandoffSide> side) {

    /** Which end of a custom handoff a method is ({@code side:}). */
    public enum HandoffSide {
        /** Stamped on entry, before what is handed over can be seen. */
        PUT,
        /** Stamped on normal exit, after it was taken. */
        TAKE;

        public String yamlName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** What a collective region records besides key and participants (Becker §4.1). */
    public record Collective(CollectiveFlavour flavour, Optional<ValueSource> rank, Optional<ValueSource> root) {
        public Collective {
            Objects.requireNonNull(flavour, "flavour");
            Objects.requireNonNull(rank, "rank");
            Objects.requireNonNull(root, "root");
        }
    }

    /** A region of any kind but collective. */
    public RegionSpec(String name, String classPattern, String methodPattern, Optional<String> descriptor,
                      RegionKind kind, OptionalInt id, Optional<ValueSource> channel, Optional<ValueSource> key,
                      Optional<ValueSource> participants, Optional<ValueSource> instance, int line) {
        this(name, classPattern, methodPattern, descriptor, kind, id, channel, key, participants, instance, line,
                Optional.empty(), Optional.empty());
    }

    /** A region of any kind but handoff. */
    public RegionSpec(String name, String classPattern, String methodPattern, Optional<String> descriptor,
                      RegionKind kind, OptionalInt id, Optional<ValueSource> channel, Optional<ValueSource> key,
                      Optional<ValueSource> participants, Optional<ValueSource> instance, int line,
                      Optional<Collective> collective) {
        this(name, classPattern, methodPattern, descriptor, kind, id, channel, key, participants, instance, line,
                collective, Optional.empty());
    }

    /** The largest explicit region id (24 bits). */
    public static final int MAX_ID = 16_777_215;

    public RegionSpec {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(classPattern, "classPattern");
        Objects.requireNonNull(methodPattern, "methodPattern");
        Objects.requireNonNull(descriptor, "descriptor");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(channel, "channel");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(participants, "participants");
        Objects.requireNonNull(instance, "instance");
        Objects.requireNonNull(collective, "collective");
        Objects.requireNonNull(side, "side");
    }
}
