package dev.dprof.agent.instrument;

import dev.dprof.agent.bootstrap.FutureHandoffs;
import dev.dprof.agent.bootstrap.QueueHandoffs;
import dev.dprof.agent.bootstrap.TaskHandoffs;
import dev.dprof.agent.bootstrap.ThreadHandoffs;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;

/**
 * Advice for the JDK's handoffs, woven without configuration ({@link HandoffWeaving} says where);
 * each body is one call into the bootstrap part, which says what is recorded and why it is exact
 * ({@code QueueHandoffs}, {@code TaskHandoffs}, {@code FutureHandoffs}, {@code ThreadHandoffs}).
 * As in {@link Advices}, {@code suppress} makes a failing probe skip itself, and the exception
 * handler installed by the weaver counts it; a region id is bound per woven method as
 * {@link Advices.RegionId}.
 */
final class HandoffAdvices {
    private HandoffAdvices() {
    }

    /** A queue's constructor: names the queue's site. */
    static final class QueueConstructed {
        @Advice.OnMethodExit(suppress = Throwable.class)
        static void exit(@Advice.This Object queue) {
            QueueHandoffs.constructed(queue);
        }
    }

    /** A put that returns nothing ({@code put}, {@code putLast}, {@code transfer}): inserted unless it threw. */
    static final class QueuePutVoid {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static long enter(@Advice.This Object queue, @Advice.Argument(0) Object element) {
            return QueueHandoffs.beforePut(queue, element);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@Advice.This Object queue, @Advice.Argument(0) Object element, @Advice.Enter long token,
                         @Advice.Thrown Throwable thrown) {
            QueueHandoffs.afterPut(queue, element, token, thrown == null);
        }
    }

    /** A put that says whether it inserted ({@code offer}, {@code add}, {@code tryTransfer}). */
    static final class QueuePutBoolean {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static long enter(@Advice.This Object queue, @Advice.Argument(0) Object element) {
            return QueueHandoffs.beforePut(queue, element);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@Advice.This Object queue, @Advice.Argument(0) Object element, @Advice.Enter long token,
                         @Advice.Return boolean inserted, @Advice.Thrown Throwable thrown) {
            QueueHandoffs.afterPut(queue, element, token, thrown == null && inserted);
        }
    }

    /**
     * A blocking put of {@code ArrayBlockingQueue} or {@code LinkedBlockingDeque} ({@code put},
     * timed {@code offer}, their deque forms): also the take it waits for if the queue is full
     * (back-pressure; {@code count} read without the lock, {@code lock} held by every removal).
     */
    static final class QueueBlockingPutLocked {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static long enter(@Advice.This Object queue, @Advice.Argument(0) Object element,
                          @Advice.FieldValue("count") int count, @Advice.FieldValue("lock") ReentrantLock lock,
                          @Advice.Local("pressure") long pressure, @Advice.Local("removals") long removals) {
            long token = QueueHandoffs.beforePut(queue, element);
            removals = QueueHandoffs.otherRemovalsQuiet();
            pressure = QueueHandoffs.pressure(queue, count, lock, removals);
            return token;
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@Advice.This Object queue, @Advice.Argument(0) Object element, @Advice.Enter long token,
                         @Advice.Return(typing = Assigner.Typing.DYNAMIC) Object returned,
                         @Advice.Thrown Throwable thrown, @Advice.Local("pressure") long pressure,
                         @Advice.Local("removals") long removals) {
            QueueHandoffs.afterBlockingPut(queue, element, token, returned, thrown, pressure, removals);
        }
    }

    /** A blocking put of {@code LinkedBlockingQueue}: as {@link QueueBlockingPutLocked}, whose removals hold {@code takeLock}. */
    static final class QueueBlockingPutTwoLocks {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static long enter(@Advice.This Object queue, @Advice.Argument(0) Object element,
                          @Advice.FieldValue("count") AtomicInteger count,
                          @Advice.FieldValue("takeLock") ReentrantLock lock,
                          @Advice.Local("pressure") long pressure, @Advice.Local("removals") long removals) {
            long token = QueueHandoffs.beforePut(queue, element);
            removals = QueueHandoffs.otherRemovalsQuiet();
            pressure = QueueHandoffs.pressure(queue, count.get(), lock, removals);
            return token;
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@Advice.This Object queue, @Advice.Argument(0) Object element, @Advice.Enter long token,
                         @Advice.Return(typing = Assigner.Typing.DYNAMIC) Object returned,
                         @Advice.Thrown Throwable thrown, @Advice.Local("pressure") long pressure,
                         @Advice.Local("removals") long removals) {
            QueueHandoffs.afterBlockingPut(queue, element, token, returned, thrown, pressure, removals);
        }
    }

    /**
     * A rendezvous ({@code SynchronousQueue.put} and timed {@code offer}, {@code transfer} and timed
     * {@code tryTransfer}): returns once a taker has the element, so it waited for that take.
     */
    static final class QueueRendezvous {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static long enter(@Advice.This Object queue, @Advice.Argument(0) Object element) {
            return QueueHandoffs.beforePut(queue, element);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@Advice.This Object queue, @Advice.Argument(0) Object element, @Advice.Enter long token,
                         @Advice.Return(typing = Assigner.Typing.DYNAMIC) Object returned,
                         @Advice.Thrown Throwable thrown) {
            QueueHandoffs.afterRendezvous(queue, element, token, thrown == null && !Boolean.FALSE.equals(returned));
        }
    }

    /** A take or poll: what it returned was taken. */
    static final class QueueTake {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static int enter(@Advice.This Object queue) {
            return QueueHandoffs.beforeTake(queue);
        }

        @Advice.OnMethodExit(suppress = Throwable.class)
        static void exit(@Advice.This Object queue, @Advice.Return(typing = Assigner.Typing.DYNAMIC) Object taken,
                         @Advice.Enter int token) {
            QueueHandoffs.afterTake(queue, taken, token);
        }
    }

    /** A deque's take from its tail ({@code pollLast}, {@code takeLast}): a take, and a removal other than the head's. */
    static final class QueueTakeLast {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static int enter(@Advice.This Object queue) {
            QueueHandoffs.beforeOtherRemoval();
            return QueueHandoffs.beforeTake(queue);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@Advice.This Object queue, @Advice.Return(typing = Assigner.Typing.DYNAMIC) Object taken,
                         @Advice.Enter int token, @Advice.Thrown Throwable thrown) {
            QueueHandoffs.afterOtherRemoval();
            if (thrown == null) {
                QueueHandoffs.afterTake(queue, taken, token);
            }
        }
    }

    /** {@code drainTo}, {@code clear}, {@code removeIf}, {@code removeAll}, {@code retainAll}. */
    static final class QueueBulkRemoval {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static void enter() {
            QueueHandoffs.beforeOtherRemoval();
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@Advice.This Object queue) {
            QueueHandoffs.afterOtherRemoval();
            QueueHandoffs.afterBulkRemoval(queue);
        }
    }

    /** {@code remove(Object)}, a deque's {@code removeFirstOccurrence} and {@code removeLastOccurrence}. */
    static final class QueueRemoval {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static void enter() {
            QueueHandoffs.beforeOtherRemoval();
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@Advice.This Object queue, @Advice.Return boolean removed, @Advice.Thrown Throwable thrown) {
            QueueHandoffs.afterOtherRemoval();
            QueueHandoffs.afterRemoval(queue, thrown == null && removed);
        }
    }

    /** An iterator's {@code remove} on a bounded queue: a removal other than the head's take. */
    static final class QueueIteratorRemoval {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static void enter() {
            QueueHandoffs.beforeOtherRemoval();
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit() {
            QueueHandoffs.afterOtherRemoval();
        }
    }

    /** {@code ForkJoinPool.WorkQueue.push}, {@code lockedPush} (JDK 17): a task onto a work queue. */
    static final class TaskPush {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static long enter(@Advices.RegionId int region, @Advice.Argument(0) Object task) {
            return TaskHandoffs.beforePush(task, region);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@Advice.Argument(0) Object task, @Advice.Enter long token, @Advice.Thrown Throwable thrown) {
            TaskHandoffs.afterPush(task, token, thrown == null);
        }
    }

    /** {@code ForkJoinTask.doExec}: the task's run starts (unless it is done already). */
    static final class TaskExec {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static void enter(@Advices.RegionId int region, @Advice.This Object task,
                          @Advice.FieldValue("status") int status) {
            TaskHandoffs.beforeExec(task, status >= 0, region);
        }
    }

    /** {@code CompletableFuture.get}, {@code join}: a waiter, if the future is not done. */
    static final class CompletableWait {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static boolean enter(@Advice.This Object future, @Advice.FieldValue("result") Object result) {
            if (result != null) {
                return false;
            }
            FutureHandoffs.beforeWait(future);
            return true;
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@Advices.RegionId int region, @Advice.This Object future, @Advice.Enter boolean waited) {
            if (waited) {
                FutureHandoffs.afterWait(future, region);
            }
        }
    }

    /** {@code CompletableFuture}'s completion primitives, each one compare-and-set of its result. */
    static final class CompletableComplete {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static boolean enter(@Advices.RegionId int region, @Advice.This Object future,
                             @Advice.FieldValue("result") Object result) {
            return result == null && FutureHandoffs.beforeComplete(future, region);
        }

        @Advice.OnMethodExit(suppress = Throwable.class)
        static void exit(@Advice.This Object future, @Advice.Enter boolean stamped, @Advice.Return boolean completed) {
            if (stamped && completed) {
                FutureHandoffs.published(future);
            }
        }
    }

    /** {@code FutureTask.get}: a waiter, if the task is not done ({@code state} NEW or COMPLETING). */
    static final class FutureTaskWait {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static boolean enter(@Advice.This Object future, @Advice.FieldValue("state") int state) {
            if (state > 1) {
                return false;
            }
            FutureHandoffs.beforeWait(future);
            return true;
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@Advices.RegionId int region, @Advice.This Object future, @Advice.Enter boolean waited) {
            if (waited) {
                FutureHandoffs.afterWait(future, region);
            }
        }
    }

    /** {@code FutureTask.set}, {@code setException}: stamps the put if the task is still NEW and waited for. */
    static final class FutureTaskSet {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static void enter(@Advices.RegionId int region, @Advice.This Object future, @Advice.FieldValue("state") int state) {
            if (state == 0) {
                FutureHandoffs.beforeComplete(future, region);
            }
        }
    }

    /**
     * {@code FutureTask.finishCompletion}, which the publishing thread runs before it wakes the
     * waiters: published if the outcome is a value or an exception (NORMAL, EXCEPTIONAL).
     */
    static final class FutureTaskPublished {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static void enter(@Advice.This Object future, @Advice.FieldValue("state") int state) {
            if (state == 2 || state == 3) {
                FutureHandoffs.published(future);
            }
        }
    }

    /** {@code Thread.start}: the new thread's id, before it can run. */
    static final class ThreadStart {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static void enter(@Advices.RegionId int region, @Advice.This Thread thread) {
            ThreadHandoffs.beforeStart(thread, region);
        }
    }

    /** {@code Thread.exit}, run by the VM on the ending thread before {@code join} can return. */
    static final class ThreadExit {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static void enter(@Advices.RegionId int region) {
            ThreadHandoffs.atExit(region);
        }
    }

    /** {@code Thread.join(long)}: the joined thread's end, if it has ended. */
    static final class ThreadJoin {
        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@Advices.RegionId int region, @Advice.This Thread thread, @Advice.Thrown Throwable thrown) {
            if (thrown == null) {
                ThreadHandoffs.afterJoin(thread, region);
            }
        }
    }
}
