package dev.dprof.agent.instrument;

import dev.dprof.agent.bootstrap.Probes;
import dev.dprof.agent.instrument.Advices.RegionId;
import net.bytebuddy.asm.Advice;

/** Advice for the no-op methods of {@code dev.dprof.api.DProf}: each becomes one probe. */
final class ApiAdvices {
    private ApiAdvices() {
    }

    static final class Send {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static void enter(@RegionId int region, @Advice.Argument(0) String channel, @Advice.Argument(1) long seq) {
            Probes.send(region, Probes.keyOf(channel), seq);
        }
    }

    static final class Receive {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static void enter(@RegionId int region, @Advice.Argument(0) String channel, @Advice.Argument(1) long seq) {
            Probes.receive(region, Probes.keyOf(channel), seq);
        }
    }

    static final class BarrierEnter {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static void enter(@RegionId int region, @Advice.Argument(0) long key, @Advice.Argument(1) int participants) {
            Probes.barrierEnter(region, key, participants);
        }
    }

    static final class BarrierExit {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static void enter(@RegionId int region, @Advice.Argument(0) long key, @Advice.Argument(1) int participants) {
            Probes.barrierExit(region, key, participants);
        }
    }

    static final class CollectiveEnter {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static void enter(@RegionId int region, @Advice.Argument(0) String flavour, @Advice.Argument(1) long key,
                          @Advice.Argument(2) int participants, @Advice.Argument(3) int rank,
                          @Advice.Argument(4) int root) {
            Probes.barrierEnter(region, key, Probes.collectiveShape(Probes.flavourCode(flavour), participants, rank, root));
        }
    }

    static final class CollectiveExit {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static void enter(@RegionId int region, @Advice.Argument(0) String flavour, @Advice.Argument(1) long key,
                          @Advice.Argument(2) int participants, @Advice.Argument(3) int rank,
                          @Advice.Argument(4) int root) {
            Probes.barrierExit(region, key, Probes.collectiveShape(Probes.flavourCode(flavour), participants, rank, root));
        }
    }

    static final class Progress {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static void enter(@Advice.Argument(0) String name) {
            Probes.progress(name);
        }
    }
}
