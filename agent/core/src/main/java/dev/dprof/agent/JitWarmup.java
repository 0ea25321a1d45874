package dev.dprof.agent;

import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.LambdaMetafactory;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import java.util.function.ToLongFunction;

/**
 * The last step of the agent's start: leaves the JIT with nothing of the agent's left to compile
 * when {@code main} begins. In rounds, it runs the work that every later class load and lambda of
 * the application repeats — the agent's class-file filter and the JDK's lambda spinning — and then
 * waits until the compilers have been idle for a while.
 *
 * <p>Why: the agent's start loads about 3 000 classes and spins about 300 lambdas, which leaves the
 * JDK's class-file writer (its internal ASM on JDK 17, the class-file API later), the method-handle
 * machinery and the agent's filter just short of C2's thresholds. The application's own first
 * lambdas then pushed them over, just as its hot loop began: C2 spent 60–400 ms on
 * {@code SymbolTable.addConstantMemberReference} and its kin while the loop ran in C1 code, which
 * cost a K-Means run 35–120 ms in its first iteration (BENCHMARKS.md, "Agent overhead",
 * {@code -XX:+LogCompilation}). One long burst of lambdas does not do it: while C2's queue is long
 * its thresholds are scaled up, so methods stay just short of them until the queue has drained.
 * Hence rounds, each after the compilers went quiet.
 *
 * <p>The lambdas are spun for a copy of {@link Target} in a class loader of their own, so that
 * they, and their classes, can be unloaded once the warm-up is done. Nothing here runs application
 * code, and a failure only ends the warm-up (one line on stderr).
 */
final class JitWarmup {
    /** Lambdas per round, in four shapes (capturing, primitive arguments and results, void). */
    static final int LAMBDAS_PER_ROUND = 250;
    static final int MAX_ROUNDS = 6;
    /** A round after which the compilers worked less than this (ms) ends the warm-up. */
    static final long SETTLED_MS = 10;
    /** How long the compilers must have been idle for a round to end. */
    static final long QUIET_MS = 150;
    /** The whole warm-up's budget, e.g. on a machine too loaded for it. */
    static final long BUDGET_NANOS = 3_000_000_000L;

    private JitWarmup() {
    }

    /** The lambdas' implementations; defined again in a throwaway loader (see the class comment). */
    public static final class Target {
        private Target() {
        }

        public static MethodHandles.Lookup lookup() {
            return MethodHandles.lookup();
        }

        public static Object pair(String a, Integer b, Long c, Thread d, StringBuilder x, Double y) {
            return x;
        }

        public static void accept(String a, int b, Object x) {
        }

        public static Object fromInt(long a, double b, int x) {
            return null;
        }

        public static long toLong(Object a, char b, Object x) {
            return 0;
        }
    }

    /**
     * Runs the rounds; {@code filter} is the agent's class-file filter run over the loaded classes'
     * names. Returns the rounds run (0 if the JVM cannot report its compilation time).
     */
    static int run(Runnable filter) {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        if (jit == null || !jit.isCompilationTimeMonitoringSupported()) {
            return 0;
        }
        long deadline = System.nanoTime() + BUDGET_NANOS;
        int rounds = 0;
        try {
            Spinner spinner = new Spinner(throwawayCopy());
            while (rounds < MAX_ROUNDS && System.nanoTime() - deadline < 0) {
                long before = jit.getTotalCompilationTime();
                filter.run();
                spinner.spin(LAMBDAS_PER_ROUND);
                awaitQuiet(jit, deadline);
                rounds++;
                if (rounds > 1 && jit.getTotalCompilationTime() - before < SETTLED_MS) {
                    break;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Throwable e) {
            AgentStarter.warn("JIT warm-up ended early (" + e + ")");
        }
        return rounds;
    }

    private static void awaitQuiet(CompilationMXBean jit, long deadline) throws InterruptedException {
        long last = jit.getTotalCompilationTime();
        long quietSince = System.nanoTime();
        while (System.nanoTime() - quietSince < QUIET_MS * 1_000_000L && System.nanoTime() - deadline < 0) {
            Thread.sleep(20);
            long now = jit.getTotalCompilationTime();
            if (now != last) {
                last = now;
                quietSince = System.nanoTime();
            }
        }
    }

    private static Class<?> throwawayCopy() throws IOException {
        byte[] bytes;
        try (InputStream in = JitWarmup.class.getResourceAsStream("JitWarmup$Target.class")) {
            if (in == null) {
                throw new IOException("JitWarmup$Target.class not found next to " + JitWarmup.class.getName());
            }
            bytes = in.readAllBytes();
        }
        return new ClassLoader(null) {
            Class<?> define() {
                return defineClass(Target.class.getName(), bytes, 0, bytes.length);
            }
        }.define();
    }

    /** Spins lambdas of four shapes in turn, as the JDK does for each {@code invokedynamic} lambda. */
    private static final class Spinner {
        private final MethodHandles.Lookup lookup;
        private final MethodHandle pair;
        private final MethodHandle accept;
        private final MethodHandle fromInt;
        private final MethodHandle toLong;
        private int spun;

        Spinner(Class<?> target) throws ReflectiveOperationException {
            lookup = (MethodHandles.Lookup) target.getMethod("lookup").invoke(null);
            pair = lookup.findStatic(target, "pair", MethodType.methodType(Object.class,
                    String.class, Integer.class, Long.class, Thread.class, StringBuilder.class, Double.class));
            accept = lookup.findStatic(target, "accept", MethodType.methodType(void.class,
                    String.class, int.class, Object.class));
            fromInt = lookup.findStatic(target, "fromInt", MethodType.methodType(Object.class,
                    long.class, double.class, int.class));
            toLong = lookup.findStatic(target, "toLong", MethodType.methodType(long.class,
                    Object.class, char.class, Object.class));
        }

        void spin(int n) throws Throwable {
            MethodType objectToObject = MethodType.methodType(Object.class, Object.class, Object.class);
            MethodType builderAndDouble = MethodType.methodType(Object.class, StringBuilder.class, Double.class);
            MethodType objectToVoid = MethodType.methodType(void.class, Object.class);
            MethodType intToObject = MethodType.methodType(Object.class, int.class);
            MethodType objectToLong = MethodType.methodType(long.class, Object.class);
            for (int end = spun + n; spun < end; spun++) {
                Object lambda = switch (spun & 3) {
                    case 0 -> LambdaMetafactory.metafactory(lookup, "apply", MethodType.methodType(BiFunction.class,
                                    String.class, Integer.class, Long.class, Thread.class), objectToObject, pair, builderAndDouble)
                            .getTarget().invoke("a", (Integer) spun, (Long) (long) spun, (Thread) null);
                    case 1 -> LambdaMetafactory.metafactory(lookup, "accept", MethodType.methodType(Consumer.class,
                                    String.class, int.class), objectToVoid, accept, objectToVoid)
                            .getTarget().invoke("a", spun);
                    case 2 -> LambdaMetafactory.metafactory(lookup, "apply", MethodType.methodType(IntFunction.class,
                                    long.class, double.class), intToObject, fromInt, intToObject)
                            .getTarget().invoke((long) spun, 1.0);
                    default -> LambdaMetafactory.metafactory(lookup, "applyAsLong", MethodType.methodType(
                                    ToLongFunction.class, Object.class, char.class), objectToLong, toLong, objectToLong)
                            .getTarget().invoke(null, 'c');
                };
                if (lambda == null) {
                    throw new IllegalStateException("the lambda factory returned null");
                }
            }
        }
    }
}
