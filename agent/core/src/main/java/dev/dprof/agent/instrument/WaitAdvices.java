package dev.dprof.agent.instrument;

import dev.dprof.agent.bootstrap.Waits;
import java.util.Map;
import java.util.Set;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.implementation.bytecode.StackManipulation;
import net.bytebuddy.matcher.ElementMatchers;

/**
 * Advice for {@code java.util.concurrent.locks.LockSupport} ({@code HandoffRegions.Kind.WAIT};
 * {@link Waits} says what is recorded and why): every {@code park}, {@code parkNanos} and
 * {@code parkUntil}, with and without blocker, reads the clock as it begins and hands the start to
 * {@link Waits} as it returns, with its timeout when it has one.
 *
 * <p>Each park is woven once: on JDK 25 {@code parkUntil(blocker, deadline)} calls
 * {@code parkUntil(deadline)}, on JDK 17 it parks itself, so only the leaves among the park
 * methods are woven ({@link HandoffWeaving.Leaves}), as for the queues. {@code LockSupport} is
 * loaded long before the agent: it is retransformed, and a thread parked in it meanwhile returns
 * through the old code and records nothing for that park.
 */
final class WaitAdvices {
    static final String TYPE = "java.util.concurrent.locks.LockSupport";
    private static final Set<String> PARKS = Set.of("park", "parkNanos", "parkUntil");

    private WaitAdvices() {
    }

    static DynamicType.Builder<?> weave(DynamicType.Builder<?> builder, TypeDescription type,
                                        StackManipulation adviceFailed) {
        Waits.prepare();
        Map<String, Set<String>> calls = HandoffWeaving.Leaves.calls(type);
        DynamicType.Builder<?> b = builder;
        for (MethodDescription.InDefinedShape m : type.getDeclaredMethods()) {
            if (!PARKS.contains(m.getName()) || !m.isStatic() || m.isNative()
                    || !HandoffWeaving.Leaves.isLeaf(calls, m, PARKS)) {
                continue;
            }
            Class<?> advice = advice(m);
            if (advice != null) {
                b = b.visit(Advice.to(advice).withExceptionHandler(adviceFailed).on(ElementMatchers.is(m)));
            }
        }
        return b;
    }

    /** The advice for one park method by its name and parameters, or null for a shape not known. */
    private static Class<?> advice(MethodDescription m) {
        int params = m.getParameters().size();
        boolean blocker = params > 0 && !m.getParameters().get(0).getType().isPrimitive();
        int timed = params - (blocker ? 1 : 0);
        if (timed == 0 && m.getName().equals("park")) {
            return Park.class;
        }
        if (timed != 1 || !m.getParameters().get(params - 1).getType().represents(long.class)) {
            return null;
        }
        return switch (m.getName()) {
            case "parkNanos" -> blocker ? ParkNanosWithBlocker.class : ParkNanos.class;
            case "parkUntil" -> blocker ? ParkUntilWithBlocker.class : ParkUntil.class;
            default -> null;
        };
    }

    /** {@code park()}, {@code park(blocker)}. */
    static final class Park {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static long enter() {
            return System.nanoTime();
        }

        @Advice.OnMethodExit(suppress = Throwable.class)
        static void exit(@Advice.Enter long start) {
            Waits.afterPark(start);
        }
    }

    /** {@code parkNanos(nanos)}. */
    static final class ParkNanos {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static long enter() {
            return System.nanoTime();
        }

        @Advice.OnMethodExit(suppress = Throwable.class)
        static void exit(@Advice.Enter long start, @Advice.Argument(0) long nanos) {
            Waits.afterParkNanos(start, nanos);
        }
    }

    /** {@code parkNanos(blocker, nanos)}. */
    static final class ParkNanosWithBlocker {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static long enter() {
            return System.nanoTime();
        }

        @Advice.OnMethodExit(suppress = Throwable.class)
        static void exit(@Advice.Enter long start, @Advice.Argument(1) long nanos) {
            Waits.afterParkNanos(start, nanos);
        }
    }

    /** {@code parkUntil(deadline)}. */
    static final class ParkUntil {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static long enter() {
            return System.nanoTime();
        }

        @Advice.OnMethodExit(suppress = Throwable.class)
        static void exit(@Advice.Enter long start, @Advice.Argument(0) long deadline) {
            Waits.afterParkUntil(start, deadline);
        }
    }

    /** {@code parkUntil(blocker, deadline)}. */
    static final class ParkUntilWithBlocker {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static long enter() {
            return System.nanoTime();
        }

        @Advice.OnMethodExit(suppress = Throwable.class)
        static void exit(@Advice.Enter long start, @Advice.Argument(1) long deadline) {
            Waits.afterParkUntil(start, deadline);
        }
    }
}
