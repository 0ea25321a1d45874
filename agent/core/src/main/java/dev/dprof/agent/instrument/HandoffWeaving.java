package dev.dprof.agent.instrument;

import dev.dprof.agent.bootstrap.HandoffSites;
import dev.dprof.agent.bootstrap.QueueHandoffs;
import dev.dprof.agent.bootstrap.VirtualThreads;
import dev.dprof.format.HandoffRegions;
import java.io.IOException;
import java.io.InputStream;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.type.TypeDefinition;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.implementation.bytecode.StackManipulation;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;
import net.bytebuddy.matcher.ElementMatchers;

/**
 * Which JDK methods hand something from one thread to another, and the advice each gets
 * ({@link HandoffAdvices}); the kinds the YAML's {@code handoffs:} leaves on decide which classes
 * are woven at all ({@code docs/CONFIG.md}).
 *
 * <p><b>Each logical put or take is recorded once.</b> JDK methods delegate to each other
 * ({@code add → offer}, {@code put → putLast}, {@code take → takeFirst}), differently in each
 * release. Rather than a list per JDK, the weaver reads the class's own bytecode and weaves only
 * the <em>leaves</em>: a put (or take) method that calls no other put (or take) method of the same
 * class. A delegating method then records through the leaf it calls, on JDK 17 and 25 alike.
 * Bridge methods are never woven.
 *
 * <p>Queues: {@code LinkedBlockingQueue}, {@code ArrayBlockingQueue}, {@code LinkedBlockingDeque},
 * {@code PriorityBlockingQueue}, {@code DelayQueue}, {@code ScheduledThreadPoolExecutor.DelayedWorkQueue},
 * {@code LinkedTransferQueue}, {@code SynchronousQueue}, and with them the executors built on them.
 * The first three are keyed by position: their private leaves ({@code enqueue}, {@code dequeue},
 * {@code linkFirst}, {@code unlinkLast}, {@code removeAt}, {@code unlink}…, the same names on 17
 * and 25), which run under the queue's own locks, record ({@link #weaveFifo}); the others at their
 * public puts and takes, found again by reference. Blocking puts of the bounded ones and rendezvous
 * puts also record back-pressure, for which every removal that is not a take of the head is
 * bracketed, the bounded queues' iterators' {@code remove} included ({@code QueueHandoffs}).
 * Fork/join: {@code ForkJoinPool.WorkQueue.push} (and {@code lockedPush} on 17) to
 * {@code ForkJoinTask.doExec}. Futures: {@code CompletableFuture} and {@code FutureTask}. Threads:
 * {@code Thread.start}, {@code exit}, {@code join}. Long waits: {@code LockSupport}'s parks
 * ({@link WaitAdvices}).
 */
final class HandoffWeaving {
    static final List<String> QUEUES = List.of(
            "java.util.concurrent.LinkedBlockingQueue",
            "java.util.concurrent.ArrayBlockingQueue",
            "java.util.concurrent.LinkedBlockingDeque",
            "java.util.concurrent.PriorityBlockingQueue",
            "java.util.concurrent.DelayQueue",
            "java.util.concurrent.ScheduledThreadPoolExecutor$DelayedWorkQueue",
            "java.util.concurrent.LinkedTransferQueue",
            "java.util.concurrent.SynchronousQueue");
    static final String ARRAY_QUEUE = "java.util.concurrent.ArrayBlockingQueue";
    static final String LINKED_QUEUE = "java.util.concurrent.LinkedBlockingQueue";
    static final String LINKED_DEQUE = "java.util.concurrent.LinkedBlockingDeque";
    static final String TRANSFER_QUEUE = "java.util.concurrent.LinkedTransferQueue";
    static final String SYNCHRONOUS_QUEUE = "java.util.concurrent.SynchronousQueue";
    /** The queues keyed by position, woven in their private leaves ({@code FifoHandoff}). */
    static final Set<String> FIFO_QUEUES = Set.of(ARRAY_QUEUE, LINKED_QUEUE, LINKED_DEQUE);
    /** The iterators of the bounded queues, whose {@code remove} frees space as a take would (back-pressure). */
    static final List<String> ITERATORS = List.of(
            "java.util.concurrent.ArrayBlockingQueue$Itr",
            "java.util.concurrent.LinkedBlockingQueue$Itr",
            "java.util.concurrent.LinkedBlockingDeque$AbstractItr");
    static final String WORK_QUEUE = "java.util.concurrent.ForkJoinPool$WorkQueue";
    static final String FORK_JOIN_TASK = "java.util.concurrent.ForkJoinTask";
    static final String COMPLETABLE_FUTURE = "java.util.concurrent.CompletableFuture";
    static final String FUTURE_TASK = "java.util.concurrent.FutureTask";
    static final String THREAD = "java.lang.Thread";

    static final Set<String> PUTS = Set.of("add", "offer", "put", "transfer", "tryTransfer", "addFirst", "addLast",
            "offerFirst", "offerLast", "putFirst", "putLast", "push");
    static final Set<String> TAKES = Set.of("take", "poll", "remove", "pollFirst", "pollLast", "takeFirst",
            "takeLast", "removeFirst", "removeLast", "pop");
    /** Removals of one element by reference. */
    static final Set<String> REMOVALS = Set.of("remove", "removeFirstOccurrence", "removeLastOccurrence");
    static final Set<String> BULK_REMOVALS = Set.of("drainTo", "clear", "removeIf", "removeAll", "retainAll");
    static final Set<String> COMPLETIONS = Set.of("completeNull", "completeValue", "completeThrowable",
            "completeRelay", "internalComplete");

    private final Set<HandoffRegions.Kind> kinds;
    private final RegionTable table;
    private final StackManipulation adviceFailed;
    /** Whether the FIFO queues are keyed by position ({@code QueueHandoffs.fifoKeys}). */
    private final boolean fifoKeys;

    HandoffWeaving(Set<HandoffRegions.Kind> kinds, RegionTable table, StackManipulation adviceFailed) {
        this.kinds = Set.copyOf(kinds);
        this.table = table;
        this.adviceFailed = adviceFailed;
        if (!kinds.isEmpty()) {
            HandoffSites.install((name, location) -> table.register(name, HandoffRegions.REGION_KIND, "auto", location));
        }
        if (kinds.contains(HandoffRegions.Kind.QUEUE)) {
            // Now, before the transformer is installed: finding the FIFO queues' internals loads
            // their classes, and a class loaded while another is being woven is never woven.
            fifoKeys = QueueHandoffs.fifoKeys();
        } else {
            fifoKeys = false;
        }
    }

    /** Whether the class named {@code name} carries a handoff this configuration records. */
    boolean weaves(String name) {
        if (QUEUES.contains(name) || ITERATORS.contains(name)) {
            return kinds.contains(HandoffRegions.Kind.QUEUE);
        }
        return switch (name) {
            case WORK_QUEUE, FORK_JOIN_TASK -> kinds.contains(HandoffRegions.Kind.EXECUTOR);
            case COMPLETABLE_FUTURE, FUTURE_TASK -> kinds.contains(HandoffRegions.Kind.FUTURE);
            case THREAD -> kinds.contains(HandoffRegions.Kind.THREAD);
            case WaitAdvices.TYPE -> kinds.contains(HandoffRegions.Kind.WAIT);
            default -> false;
        };
    }

    DynamicType.Builder<?> weave(DynamicType.Builder<?> builder, TypeDescription type) {
        String name = type.getName();
        if (QUEUES.contains(name)) {
            return weaveQueue(builder, type);
        }
        if (ITERATORS.contains(name)) {
            return visitNamed(builder, type, Set.of("remove"), HandoffAdvices.QueueOtherRemoval.class, 0);
        }
        return switch (name) {
            case WORK_QUEUE -> {
                int region = region(HandoffRegions.Kind.EXECUTOR, "ForkJoinPool", "(any pool)", name);
                yield visitNamed(builder, type, Set.of("push", "lockedPush"), HandoffAdvices.TaskPush.class, region);
            }
            case FORK_JOIN_TASK -> {
                int region = region(HandoffRegions.Kind.EXECUTOR, "ForkJoinPool", "(any pool)", WORK_QUEUE);
                yield visitNamed(builder, type, Set.of("doExec"), HandoffAdvices.TaskExec.class, region);
            }
            case COMPLETABLE_FUTURE -> {
                int region = region(HandoffRegions.Kind.FUTURE, "CompletableFuture", "(any site)", name);
                DynamicType.Builder<?> b = visitNamed(builder, type, Set.of("get", "join"),
                        HandoffAdvices.CompletableWait.class, region);
                yield visitNamed(b, type, COMPLETIONS, HandoffAdvices.CompletableComplete.class, region);
            }
            case FUTURE_TASK -> {
                int region = region(HandoffRegions.Kind.FUTURE, "FutureTask", "(any site)", name);
                DynamicType.Builder<?> b = visitNamed(builder, type, Set.of("get"), HandoffAdvices.FutureTaskWait.class,
                        region);
                b = visitNamed(b, type, Set.of("set", "setException"), HandoffAdvices.FutureTaskSet.class, region);
                yield visitNamed(b, type, Set.of("finishCompletion"), HandoffAdvices.FutureTaskPublished.class, region);
            }
            case THREAD -> weaveThread(builder, type);
            case WaitAdvices.TYPE -> WaitAdvices.weave(builder, type, adviceFailed);
            default -> builder;
        };
    }

    private int region(HandoffRegions.Kind kind, String className, String where, String location) {
        return table.register(HandoffRegions.siteName(kind, className, where), HandoffRegions.REGION_KIND, "auto",
                location);
    }

    private DynamicType.Builder<?> weaveThread(DynamicType.Builder<?> builder, TypeDescription type) {
        int region = table.register(HandoffRegions.threadsName(), HandoffRegions.REGION_KIND, "auto", THREAD);
        VirtualThreads.threadHandoffs(region);
        Map<String, Set<String>> calls = Leaves.calls(type);
        DynamicType.Builder<?> b = visitNamed(builder, type, Set.of("start"), HandoffAdvices.ThreadStart.class, region);
        b = visitNamed(b, type, Set.of("exit"), HandoffAdvices.ThreadExit.class, region);
        for (MethodDescription.InDefinedShape m : type.getDeclaredMethods()) {
            if (m.getName().equals("join") && !m.isBridge() && Leaves.isLeaf(calls, m, Set.of("join"))) {
                b = b.visit(advice(HandoffAdvices.ThreadJoin.class, region).on(ElementMatchers.is(m)));
            }
        }
        return b;
    }

    private DynamicType.Builder<?> weaveQueue(DynamicType.Builder<?> builder, TypeDescription type) {
        if (FIFO_QUEUES.contains(type.getName()) && fifoKeys) {
            return weaveFifo(builder, type);
        }
        Map<String, Set<String>> calls = Leaves.calls(type);
        DynamicType.Builder<?> b = builder;
        for (MethodDescription.InDefinedShape m : type.getDeclaredMethods()) {
            if (m.isBridge() || m.isStatic() || m.isAbstract() || m.isTypeInitializer()) {
                continue;
            }
            Class<?> advice = null;
            if (m.isConstructor()) {
                advice = HandoffAdvices.QueueConstructed.class;
            } else if (isPut(m) && Leaves.isLeaf(calls, m, PUTS)) {
                advice = putAdvice(type.getName(), m);
            } else if (isTake(m) && Leaves.isLeaf(calls, m, TAKES)) {
                advice = HandoffAdvices.QueueTake.class;
            } else if (m.isPublic() && BULK_REMOVALS.contains(m.getName())) {
                advice = HandoffAdvices.QueueBulkRemoval.class;
            } else if (m.isPublic() && REMOVALS.contains(m.getName()) && m.getParameters().size() == 1
                    && m.getReturnType().represents(boolean.class)) {
                advice = HandoffAdvices.QueueRemoval.class;
            }
            if (advice != null) {
                b = b.visit(advice(advice, 0).on(ElementMatchers.is(m)));
            }
        }
        return b;
    }

    /**
     * A FIFO queue, keyed by position ({@code QueueHandoffs}, {@code FifoHandoff}): the private
     * leaves that insert and remove under the queue's locks record; the public methods only bracket
     * removals other than a take of the head and look for back-pressure; {@code clear},
     * {@code drainTo}, the bulk removals and a deque's {@code addAll} open a window.
     */
    private DynamicType.Builder<?> weaveFifo(DynamicType.Builder<?> builder, TypeDescription type) {
        String name = type.getName();
        Map<String, Set<String>> calls = Leaves.calls(type);
        DynamicType.Builder<?> b = builder;
        for (MethodDescription.InDefinedShape m : type.getDeclaredMethods()) {
            if (m.isBridge() || m.isStatic() || m.isAbstract() || m.isTypeInitializer()) {
                continue;
            }
            Class<?> advice = m.isConstructor() ? HandoffAdvices.QueueConstructed.class : fifoLeafAdvice(name, m);
            if (advice == null && m.isPublic()) {
                String n = m.getName();
                boolean deque = name.equals(LINKED_DEQUE);
                if (isPut(m) && Leaves.isLeaf(calls, m, PUTS) && blocking(m)) {
                    advice = name.equals(LINKED_QUEUE) ? HandoffAdvices.FifoBlockingPutLinked.class
                            : HandoffAdvices.FifoBlockingPut.class;
                } else if (n.equals("clear") || n.equals("removeIf") || n.equals("removeAll")
                        || n.equals("retainAll")) {
                    advice = HandoffAdvices.FifoBulkRemoval.class;
                } else if (n.equals("drainTo") && Leaves.isLeaf(calls, m, Set.of("drainTo"))) {
                    // A deque drains through unlinkFirst, which records: a bracket is all it needs.
                    advice = deque ? HandoffAdvices.QueueOtherRemoval.class : HandoffAdvices.FifoDrain.class;
                } else if (deque && n.equals("addAll")) {
                    advice = HandoffAdvices.FifoAppend.class;
                } else if (BULK_REMOVALS.contains(n)
                        || REMOVALS.contains(n) && m.getParameters().size() == 1
                        && m.getReturnType().represents(boolean.class)
                        || deque && isTake(m) && n.endsWith("Last") && Leaves.isLeaf(calls, m, TAKES)) {
                    advice = HandoffAdvices.QueueOtherRemoval.class;
                }
            }
            if (advice != null) {
                b = b.visit(advice(advice, 0).on(ElementMatchers.is(m)));
            }
        }
        return b;
    }

    /** The advice of a FIFO queue's private leaf that inserts or removes under its locks, or null. */
    private static Class<?> fifoLeafAdvice(String queue, MethodDescription m) {
        String n = m.getName();
        int params = m.getParameters().size();
        return switch (queue) {
            case ARRAY_QUEUE -> switch (n) {
                case "enqueue" -> params == 1 ? HandoffAdvices.FifoEnqueued.class : null;
                case "dequeue" -> params == 0 ? HandoffAdvices.FifoDequeued.class : null;
                case "removeAt" -> params == 1 && m.getParameters().get(0).getType().represents(int.class)
                        ? HandoffAdvices.FifoArrayRemoveAt.class : null;
                default -> null;
            };
            case LINKED_QUEUE -> switch (n) {
                case "enqueue" -> params == 1 ? HandoffAdvices.FifoLinkedEnqueue.class : null;
                case "dequeue" -> params == 0 ? HandoffAdvices.FifoDequeued.class : null;
                case "unlink" -> params == 2 ? HandoffAdvices.FifoLinkedUnlink.class : null;
                default -> null;
            };
            case LINKED_DEQUE -> switch (n) {
                case "linkFirst" -> params == 1 ? HandoffAdvices.FifoLinkedFirst.class : null;
                case "linkLast" -> params == 1 ? HandoffAdvices.FifoLinkedLast.class : null;
                case "unlinkFirst" -> params == 0 ? HandoffAdvices.FifoDequeued.class : null;
                case "unlinkLast" -> params == 0 ? HandoffAdvices.FifoUnlinkedLast.class : null;
                case "unlink" -> params == 1 ? HandoffAdvices.FifoDequeUnlink.class : null;
                default -> null;
            };
            default -> null;
        };
    }

    /** A put that may wait for space: one that returns nothing, or a timed offer. */
    private static boolean blocking(MethodDescription m) {
        return m.getReturnType().represents(void.class)
                || m.getParameters().size() == 3 && m.getParameters().get(1).getType().represents(long.class);
    }

    /**
     * A put's advice on a queue found again by reference: a rendezvous also looks for the take of
     * its own element ({@code QueueHandoffs}, back-pressure).
     */
    private static Class<?> putAdvice(String queue, MethodDescription m) {
        boolean returnsVoid = m.getReturnType().represents(void.class);
        if (blocking(m)) {
            if (queue.equals(SYNCHRONOUS_QUEUE)
                    || queue.equals(TRANSFER_QUEUE) && (m.getName().equals("transfer") || m.getName().equals("tryTransfer"))) {
                return HandoffAdvices.QueueRendezvous.class;
            }
        }
        return returnsVoid ? HandoffAdvices.QueuePutVoid.class : HandoffAdvices.QueuePutBoolean.class;
    }

    private static boolean isPut(MethodDescription m) {
        return m.isPublic() && PUTS.contains(m.getName()) && !m.getParameters().isEmpty()
                && !m.getParameters().get(0).getType().isPrimitive()
                && (m.getReturnType().represents(void.class) || m.getReturnType().represents(boolean.class));
    }

    private static boolean isTake(MethodDescription m) {
        int params = m.getParameters().size();
        return m.isPublic() && TAKES.contains(m.getName()) && !m.getReturnType().isPrimitive()
                && (params == 0 || params == 2 && m.getParameters().get(0).getType().represents(long.class));
    }

    /** Weaves {@code advice} into every declared, non-bridge method named in {@code names}. */
    private DynamicType.Builder<?> visitNamed(DynamicType.Builder<?> builder, TypeDescription type, Set<String> names,
                                              Class<?> advice, int region) {
        DynamicType.Builder<?> b = builder;
        for (MethodDescription.InDefinedShape m : type.getDeclaredMethods()) {
            if (names.contains(m.getName()) && !m.isBridge() && !m.isAbstract() && !m.isNative()) {
                b = b.visit(advice(advice, region).on(ElementMatchers.is(m)));
            }
        }
        return b;
    }

    private Advice advice(Class<?> advice, int region) {
        return Advice.withCustomMapping().bind(Advices.RegionId.class, region).to(advice)
                .withExceptionHandler(adviceFailed);
    }

    /**
     * The calls each method of a class makes to methods of that same class or its superclasses
     * (where {@code AbstractQueue.add} calls the class's {@code offer}), read from its class file:
     * what tells a leaf from a method that delegates.
     */
    static final class Leaves {
        private Leaves() {
        }

        /** Method {@code name+descriptor} → names of the same class's methods it invokes. */
        static Map<String, Set<String>> calls(TypeDescription type) {
            String internal = type.getInternalName();
            Set<String> owners = new HashSet<>();
            for (TypeDefinition t = type; t != null; t = t.getSuperClass()) {
                owners.add(t.asErasure().getInternalName());
            }
            Map<String, Set<String>> calls = new HashMap<>();
            try (InputStream in = ClassLoader.getSystemResourceAsStream(internal + ".class")) {
                if (in == null) {
                    return calls;
                }
                new ClassReader(in).accept(new ClassVisitor(Opcodes.ASM9) {
                    @Override
                    public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                                                     String[] exceptions) {
                        Set<String> called = calls.computeIfAbsent(name + descriptor, k -> new HashSet<>());
                        return new MethodVisitor(Opcodes.ASM9) {
                            @Override
                            public void visitMethodInsn(int opcode, String owner, String callee, String desc,
                                                        boolean isInterface) {
                                if (owners.contains(owner)) {
                                    called.add(callee);
                                }
                            }
                        };
                    }
                }, ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES);
            } catch (IOException | RuntimeException e) {
                // Unreadable: every method counts as a leaf, and a delegating pair is caught at run
                // time as a nested put by the same thread (QueueHandoff).
            }
            return calls;
        }

        static boolean isLeaf(Map<String, Set<String>> calls, MethodDescription m, Set<String> sameKind) {
            Set<String> called = calls.getOrDefault(m.getInternalName() + m.getDescriptor(), Set.of());
            for (String c : called) {
                if (sameKind.contains(c)) {
                    return false;
                }
            }
            return true;
        }
    }
}
