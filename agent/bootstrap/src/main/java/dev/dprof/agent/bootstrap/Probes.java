package dev.dprof.agent.bootstrap;

import dev.dprof.format.EventCodes;
import dev.dprof.format.HandoffRegions;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToIntFunction;

/**
 * What woven advice calls: one static method per event kind, each a single {@link Rings#record}.
 *
 * <h2>Implementation notes</h2>
 * <ul>
 * <li>Lives on the bootstrap class path so that code of every class loader can call it.</li>
 * <li>Uses {@link EventCodes} only in constant expressions, which javac inlines: the format
 * module is not on the bootstrap class path.</li>
 * <li>The region id is a constant bound into each woven method; with the kind it folds into
 * one header int, so a probe is the JNI call and nothing else once inlined.</li>
 * <li>Nothing here throws into the host: {@link Rings} swallows its own failures, and advice
 * that fails before reaching us is counted by {@link #adviceFailed}.</li>
 * </ul>
 */
public final class Probes {
    private static final AtomicLong FAILURES = new AtomicLong();
    private static volatile ToIntFunction<String> progressRegistry;
    private static volatile boolean failureReported;

    private Probes() {
    }

    public static void enter(int region) {
        Rings.record(EventCodes.ENTER | region << EventCodes.REGION_SHIFT);
    }

    /** Entry into a region whose instance (e.g. the rank) is chosen per call. */
    public static void enterInstance(int region, long instance) {
        Rings.record(EventCodes.ENTER_INSTANCE | region << EventCodes.REGION_SHIFT, instance);
    }

    public static void exit(int region, boolean thrown) {
        Rings.record((thrown ? EventCodes.EXIT_THROW : EventCodes.EXIT) | region << EventCodes.REGION_SHIFT);
    }

    /** Stamped before the message's bytes leave. */
    public static void send(int region, long channel, long key) {
        Rings.record(EventCodes.SEND | region << EventCodes.REGION_SHIFT, channel, key);
    }

    /** Stamped after the message's bytes arrived. */
    public static void receive(int region, long channel, long key) {
        Rings.record(EventCodes.RECEIVE | region << EventCodes.REGION_SHIFT, channel, key);
    }

    /**
     * Something is handed to another thread of this process ({@code dev.dprof.format.HandoffRegions}):
     * stamped before the other thread can see it.
     */
    public static void handoffPut(int region, long channel, long key) {
        Rings.record(EventCodes.HANDOFF_PUT | region << EventCodes.REGION_SHIFT, channel, key);
    }

    /** What a {@link #handoffPut} of this process with equal channel and key handed over was taken; stamped after. */
    public static void handoffTake(int region, long channel, long key) {
        Rings.record(EventCodes.HANDOFF_TAKE | region << EventCodes.REGION_SHIFT, channel, key);
    }

    /**
     * The channel a custom handoff (a YAML region of kind handoff) records: the configured value
     * with {@code HandoffRegions.CUSTOM_CHANNEL} set and the two bits above it clear, so it can never be a
     * reserved channel, a queue's own, or a back-pressure take. Both ends map alike, so they match.
     */
    public static long customChannel(long configured) {
        return configured & ~(7L << 61) | HandoffRegions.CUSTOM_CHANNEL;
    }

    /** Arrival at a barrier or collective; {@code shape} is its participants, or a {@link #collectiveShape}. */
    public static void barrierEnter(int region, long key, long participants) {
        Rings.record(EventCodes.BARRIER_ENTER | region << EventCodes.REGION_SHIFT, key, participants);
    }

    public static void barrierExit(int region, long key, long participants) {
        Rings.record(EventCodes.BARRIER_EXIT | region << EventCodes.REGION_SHIFT, key, participants);
    }

    /**
     * The shape of a collective event (the format's {@code CollectiveShape}, bit layout in {@link EventCodes}):
     * flavour, participants, this participant's rank and the root's. A value out of range makes the shape invalid,
     * which the reader reports and which implies no order — never a wrong one.
     */
    public static long collectiveShape(long flavour, long participants, long rank, long root) {
        long max = EventCodes.SHAPE_FIELD_MAX;
        if (flavour < 0 || flavour >= EventCodes.FLAVOUR_INVALID || participants < 0 || participants > max
                || rank < 0 || rank > max || root < 0 || root > max) {
            return (long) EventCodes.FLAVOUR_INVALID << EventCodes.SHAPE_FLAVOUR_SHIFT;
        }
        return participants | flavour << EventCodes.SHAPE_FLAVOUR_SHIFT | rank << EventCodes.SHAPE_RANK_SHIFT
                | root << EventCodes.SHAPE_ROOT_SHIFT;
    }

    /** The flavour code of a collective named as in the YAML configuration ({@code bcast}, …); invalid if unknown. */
    public static long flavourCode(String name) {
        if (name == null) {
            return EventCodes.FLAVOUR_INVALID;
        }
        return switch (name) {
            case "allreduce", "barrier", "allgather", "alltoall" -> EventCodes.FLAVOUR_N_TO_N;
            case "bcast", "scatter" -> EventCodes.FLAVOUR_ONE_TO_N;
            case "reduce", "gather" -> EventCodes.FLAVOUR_N_TO_ONE;
            case "scan" -> EventCodes.FLAVOUR_SCAN;
            case "exscan" -> EventCodes.FLAVOUR_EXSCAN;
            default -> EventCodes.FLAVOUR_INVALID;
        };
    }

    public static void progress(int region) {
        Rings.record(EventCodes.PROGRESS | region << EventCodes.REGION_SHIFT, 1);
    }

    /** A named progress point of the API; the name is resolved to a region id by the agent. */
    public static void progress(String name) {
        ToIntFunction<String> registry = progressRegistry;
        if (registry != null && name != null) {
            progress(registry.applyAsInt(name));
        }
    }

    /** Installs the agent's name-to-region lookup for {@link #progress(String)}. */
    public static void progressRegistry(ToIntFunction<String> registry) {
        progressRegistry = registry;
    }

    /**
     * A 64-bit key for any value, equal on every JVM for equal values: integral numbers by value,
     * character sequences by FNV-1a over their chars, enums by name, anything else by
     * {@code hashCode()}. Allocation-free, so keys may come from any argument or field.
     */
    public static long keyOf(Object value) {
        if (value == null) {
            return 0;
        }
        if (value instanceof Long || value instanceof Integer || value instanceof Short || value instanceof Byte) {
            return ((Number) value).longValue();
        }
        if (value instanceof Character c) {
            return c;
        }
        if (value instanceof CharSequence s) {
            return fnv1a(s);
        }
        if (value instanceof Enum<?> e) {
            return fnv1a(e.name());
        }
        return value.hashCode();
    }

    private static long fnv1a(CharSequence s) {
        long hash = 0xcbf29ce484222325L;
        for (int i = 0; i < s.length(); i++) {
            hash ^= s.charAt(i);
            hash *= 0x100000001b3L;
        }
        return hash;
    }

    /** Called by woven code whose advice threw: the event is lost, counted, and said once. */
    public static void adviceFailed(Throwable failure) {
        FAILURES.incrementAndGet();
        if (!failureReported) {
            failureReported = true;
            System.err.println("dprof: a probe failed (" + failure + "); its events are counted as lost");
        }
    }

    /** Events lost to failing advice. */
    public static long failures() {
        return FAILURES.get();
    }
}
