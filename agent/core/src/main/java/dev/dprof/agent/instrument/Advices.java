package dev.dprof.agent.instrument;

import dev.dprof.agent.bootstrap.Probes;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;

/**
 * The advice woven into selected methods, one static class per region kind; each body is one
 * call into the bootstrap {@link Probes} with constants bound per method ({@link RegionId},
 * and {@link Channel}, {@link Key}, {@link Participants}, {@link Instance}, {@link Flavour},
 * {@link Rank}, {@link Root} bound either to
 * constants or to a {@link ValueMapping}). Advice is inlined by ByteBuddy; {@code suppress}
 * makes a failing probe skip itself instead of failing the host method, and the exception
 * handler installed by {@link Weaver} counts it as a loss.
 *
 * <p>Stamps: a send is recorded on entry (before the bytes can leave), a receive on normal exit
 * (after they arrived) — DESIGN.md "Events".
 */
final class Advices {
    private Advices() {
    }

    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.PARAMETER)
    @interface RegionId {
    }

    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.PARAMETER)
    @interface Channel {
    }

    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.PARAMETER)
    @interface Key {
    }

    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.PARAMETER)
    @interface Participants {
    }

    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.PARAMETER)
    @interface Instance {
    }

    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.PARAMETER)
    @interface Flavour {
    }

    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.PARAMETER)
    @interface Rank {
    }

    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.PARAMETER)
    @interface Root {
    }

    static final class Plain {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static void enter(@RegionId int region) {
            Probes.enter(region);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@RegionId int region, @Advice.Thrown Throwable thrown) {
            Probes.exit(region, thrown != null);
        }
    }

    /** A region whose instance (the paper's rank-specific region id) is read per call. */
    static final class PlainInstance {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static void enter(@RegionId int region, @Instance long instance) {
            Probes.enterInstance(region, instance);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@RegionId int region, @Advice.Thrown Throwable thrown) {
            Probes.exit(region, thrown != null);
        }
    }

    static final class Send {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static void enter(@RegionId int region, @Channel long channel, @Key long key) {
            Probes.enter(region);
            Probes.send(region, channel, key);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@RegionId int region, @Advice.Thrown Throwable thrown) {
            Probes.exit(region, thrown != null);
        }
    }

    static final class Receive {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static void enter(@RegionId int region) {
            Probes.enter(region);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@RegionId int region, @Channel long channel, @Key long key, @Advice.Thrown Throwable thrown) {
            if (thrown == null) {
                Probes.receive(region, channel, key);
            }
            Probes.exit(region, thrown != null);
        }
    }

    /** A receive whose key is the method's return value. */
    static final class ReceiveReturn {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static void enter(@RegionId int region) {
            Probes.enter(region);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@RegionId int region, @Channel long channel,
                         @Advice.Return(typing = Assigner.Typing.DYNAMIC) Object returned,
                         @Advice.Thrown Throwable thrown) {
            if (thrown == null) {
                Probes.receive(region, channel, Probes.keyOf(returned));
            }
            Probes.exit(region, thrown != null);
        }
    }

    /**
     * Key and participants are read once, on entry, and the exit reuses them: a barrier's wait
     * typically advances the very field it is keyed by (a generation, a phase), and an exit that
     * read it again would name the next instance, not the one its enter named.
     */
    static final class Barrier {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static void enter(@RegionId int region, @Key long key, @Participants long participants,
                          @Advice.Local("key") long enteredKey, @Advice.Local("participants") long enteredParticipants) {
            enteredKey = key;
            enteredParticipants = participants;
            Probes.barrierEnter(region, enteredKey, enteredParticipants);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@RegionId int region, @Advice.Local("key") long enteredKey,
                         @Advice.Local("participants") long enteredParticipants) {
            Probes.barrierExit(region, enteredKey, enteredParticipants);
        }
    }

    /**
     * A collective of a flavour (Becker §4.1): like {@link Barrier}, with the shape — flavour,
     * participants, rank, root — read once on entry and reused on exit.
     */
    static final class Collective {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static void enter(@RegionId int region, @Key long key, @Participants long participants, @Flavour long flavour,
                          @Rank long rank, @Root long root, @Advice.Local("key") long enteredKey,
                          @Advice.Local("shape") long shape) {
            enteredKey = key;
            shape = Probes.collectiveShape(flavour, participants, rank, root);
            Probes.barrierEnter(region, enteredKey, shape);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@RegionId int region, @Advice.Local("key") long enteredKey, @Advice.Local("shape") long shape) {
            Probes.barrierExit(region, enteredKey, shape);
        }
    }

    /** The put side of a handoff the YAML picks: stamped on entry, before what is handed over can be seen. */
    static final class HandoffPut {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static void enter(@RegionId int region, @Channel long channel, @Key long key) {
            Probes.handoffPut(region, Probes.customChannel(channel), key);
        }
    }

    /** The take side of a handoff the YAML picks: stamped on normal exit, after it was taken. */
    static final class HandoffTake {
        @Advice.OnMethodExit(suppress = Throwable.class)
        static void exit(@RegionId int region, @Channel long channel, @Key long key) {
            Probes.handoffTake(region, Probes.customChannel(channel), key);
        }
    }

    /** A handoff's take keyed by the method's return value. */
    static final class HandoffTakeReturn {
        @Advice.OnMethodExit(suppress = Throwable.class)
        static void exit(@RegionId int region, @Channel long channel,
                         @Advice.Return(typing = Assigner.Typing.DYNAMIC) Object returned) {
            Probes.handoffTake(region, Probes.customChannel(channel), Probes.keyOf(returned));
        }
    }

    /** A Coz progress point: one visit each time the method returns normally. */
    static final class Progress {
        @Advice.OnMethodExit(suppress = Throwable.class)
        static void exit(@RegionId int region) {
            Probes.progress(region);
        }
    }
}
