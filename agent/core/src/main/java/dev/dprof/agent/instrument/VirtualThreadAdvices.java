package dev.dprof.agent.instrument;

import dev.dprof.agent.bootstrap.VirtualThreads;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.implementation.bytecode.StackManipulation;
import net.bytebuddy.matcher.ElementMatchers;

/**
 * Advice for {@code java.lang.VirtualThread} (JDK 21 and later; {@link VirtualThreads} says what is
 * recorded and why). The points are the same in JDK 21 and 25: {@code runContinuation()} calls
 * {@code mount()} on the carrier before it runs the continuation and {@code unmount()} after it
 * returned, whether the thread parked, yielded, blocked on a monitor (25) or ended; the
 * continuation's body is {@code run(Runnable)}, on the virtual thread; {@code Thread.start} goes
 * through {@code start(ThreadContainer)}. A thread pinned to its carrier does not unmount, so
 * nothing is recorded while it blocks: it simply stays on its carrier. Woven only when
 * {@link VirtualThreads#SUPPORTED}.
 */
final class VirtualThreadAdvices {
    static final String TYPE = "java.lang.VirtualThread";

    private VirtualThreadAdvices() {
    }

    /** Whether this JVM's virtual threads are woven. */
    static boolean enabled() {
        return VirtualThreads.SUPPORTED;
    }

    static DynamicType.Builder<?> weave(DynamicType.Builder<?> builder, StackManipulation adviceFailed) {
        return builder
                .visit(Advice.to(Mount.class).withExceptionHandler(adviceFailed)
                        .on(ElementMatchers.named("mount").and(ElementMatchers.takesArguments(0))))
                .visit(Advice.to(Unmount.class).withExceptionHandler(adviceFailed)
                        .on(ElementMatchers.named("unmount").and(ElementMatchers.takesArguments(0))))
                .visit(Advice.to(Run.class).withExceptionHandler(adviceFailed)
                        .on(ElementMatchers.named("run").and(ElementMatchers.takesArguments(Runnable.class))))
                .visit(Advice.to(Start.class).withExceptionHandler(adviceFailed)
                        .on(ElementMatchers.named("start").and(ElementMatchers.takesArguments(1))));
    }

    /** After {@code mount()}: the thread now runs on the calling carrier. */
    static final class Mount {
        @Advice.OnMethodExit(suppress = Throwable.class)
        static void exit(@Advice.This Thread self) {
            VirtualThreads.mounted(self);
        }
    }

    /** Before {@code unmount()}: the thread leaves the calling carrier. */
    static final class Unmount {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static void enter(@Advice.This Thread self) {
            VirtualThreads.unmounting(self);
        }
    }

    /** {@code run(Runnable)}: the thread's own code, from its first mount to its last unmount. */
    static final class Run {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static void enter() {
            VirtualThreads.running();
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit() {
            VirtualThreads.ended();
        }
    }

    /** {@code start(ThreadContainer)}: before the thread can be mounted, so its name is known by then. */
    static final class Start {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static void enter(@Advice.This Thread self) {
            VirtualThreads.started(self);
        }
    }
}
