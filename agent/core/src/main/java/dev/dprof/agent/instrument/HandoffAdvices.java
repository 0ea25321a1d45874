package dev.dprof.agent.instrument;

import dev.dprof.agent.bootstrap.FutureHandoffs;
import dev.dprof.agent.bootstrap.QueueHandoffs;
import dev.dprof.agent.bootstrap.TaskHandoffs;
import dev.dprof.agent.bootstrap.ThreadHandoffs;
import java.util.concurrent.atomic.AtomicInteger;
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
     * A blocking put of a bounded {@code ArrayBlockingQueue} or {@code LinkedBlockingDeque}
     * ({@code put}, timed {@code offer}, their deque forms): the take it waits for if the queue is
     * full (back-pressure; {@code count} read without the lock). Its own put is recorded by the
     * leaf it calls under the lock.
     */
    static final class FifoBlockingPut {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static long enter(@Advice.This Object queue, @Advice.FieldValue("count") int count,
                          @Advice.Local("removals") long removals) {
            removals = QueueHandoffs.otherRemovalsQuiet();
            return QueueHandoffs.fifoPressure(queue, count, removals);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@Advice.This Object queue, @Advice.Enter long pressure,
                         @Advice.Return(typing = Assigner.Typing.DYNAMIC) Object returned,
                         @Advice.Thrown Throwable thrown, @Advice.Local("removals") long removals) {
            QueueHandoffs.afterPressure(queue, pressure, removals, returned, thrown);
        }
    }

    /** A blocking put of {@code LinkedBlockingQueue}: as {@link FifoBlockingPut}, with its atomic count. */
    static final class FifoBlockingPutLinked {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static long enter(@Advice.This Object queue, @Advice.FieldValue("count") AtomicInteger count,
                          @Advice.Local("removals") long removals) {
            removals = QueueHandoffs.otherRemovalsQuiet();
            return QueueHandoffs.fifoPressure(queue, count.get(), removals);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@Advice.This Object queue, @Advice.Enter long pressure,
                         @Advice.Return(typing = Assigner.Typing.DYNAMIC) Object returned,
                         @Advice.Thrown Throwable thrown, @Advice.Local("removals") long removals) {
            QueueHandoffs.afterPressure(queue, pressure, removals, returned, thrown);
        }
    }

    /** {@code ArrayBlockingQueue.enqueue}, under the lock: the element is at the tail. */
    static final class FifoEnqueued {
        @Advice.OnMethodExit(suppress = Throwable.class)
        static void exit(@Advice.This Object queue) {
            QueueHandoffs.fifoPut(queue);
        }
    }

    /** {@code LinkedBlockingQueue.enqueue}, under {@code putLock}: stamped before the node is linked. */
    static final class FifoLinkedEnqueue {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static void enter(@Advice.This Object queue) {
            QueueHandoffs.fifoPut(queue);
        }
    }

    /** {@code LinkedBlockingDeque.linkLast}, under the lock: the element is at the tail if it returned true. */
    static final class FifoLinkedLast {
        @Advice.OnMethodExit(suppress = Throwable.class)
        static void exit(@Advice.This Object queue, @Advice.Return boolean linked) {
            if (linked) {
                QueueHandoffs.fifoPut(queue);
            }
        }
    }

    /** {@code LinkedBlockingDeque.linkFirst}, under the lock: the element is at the head if it returned true. */
    static final class FifoLinkedFirst {
        @Advice.OnMethodExit(suppress = Throwable.class)
        static void exit(@Advice.This Object queue, @Advice.Return boolean linked) {
            if (linked) {
                QueueHandoffs.fifoPutFirst(queue);
            }
        }
    }

    /**
     * {@code ArrayBlockingQueue.dequeue}, {@code LinkedBlockingQueue.dequeue},
     * {@code LinkedBlockingDeque.unlinkFirst}, under the consumer lock: the head left if something
     * was returned.
     */
    static final class FifoDequeued {
        @Advice.OnMethodExit(suppress = Throwable.class)
        static void exit(@Advice.This Object queue, @Advice.Return(typing = Assigner.Typing.DYNAMIC) Object taken) {
            if (taken != null) {
                QueueHandoffs.fifoTake(queue);
            }
        }
    }

    /** {@code LinkedBlockingDeque.unlinkLast}, under the lock: the tail left if something was returned. */
    static final class FifoUnlinkedLast {
        @Advice.OnMethodExit(suppress = Throwable.class)
        static void exit(@Advice.This Object queue, @Advice.Return(typing = Assigner.Typing.DYNAMIC) Object taken) {
            if (taken != null) {
                QueueHandoffs.fifoTakeLast(queue);
            }
        }
    }

    /** {@code ArrayBlockingQueue.removeAt(i)}, under the lock: the element {@code i - takeIndex} places from the head leaves. */
    static final class FifoArrayRemoveAt {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static void enter(@Advice.This Object queue, @Advice.Argument(0) int index,
                          @Advice.FieldValue("takeIndex") int takeIndex, @Advice.FieldValue("items") Object[] items) {
            int position = index - takeIndex;
            QueueHandoffs.fifoRemoveAt(queue, position < 0 ? position + items.length : position);
        }
    }

    /** {@code LinkedBlockingQueue.unlink(p, pred)}, under both locks: node {@code p} leaves from the middle. */
    static final class FifoLinkedUnlink {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static void enter(@Advice.This Object queue, @Advice.Argument(0) Object node) {
            QueueHandoffs.fifoUnlink(queue, node);
        }
    }

    /** {@code LinkedBlockingDeque.unlink(x)}, under the lock: node {@code x} leaves (from the middle, unless at an end). */
    static final class FifoDequeUnlink {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static void enter(@Advice.This Object queue, @Advice.Argument(0) Object node) {
            QueueHandoffs.fifoDequeUnlink(queue, node);
        }
    }

    /** {@code drainTo(c, max)} of a FIFO queue: a removal other than a take, in a window; its result is what left the head. */
    static final class FifoDrain {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static boolean enter(@Advice.This Object queue) {
            QueueHandoffs.beforeOtherRemoval();
            return QueueHandoffs.fifoWindowOpen(queue);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@Advice.This Object queue, @Advice.Enter boolean opened, @Advice.Return int drained,
                         @Advice.Thrown Throwable thrown) {
            QueueHandoffs.afterOtherRemoval();
            QueueHandoffs.fifoWindowClose(queue, opened, thrown == null ? drained : -1);
        }
    }

    /**
     * {@code clear}, {@code removeIf}, {@code removeAll}, {@code retainAll} of a FIFO queue: a
     * removal other than a take, in a window; the take side is rebuilt after.
     */
    static final class FifoBulkRemoval {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static boolean enter(@Advice.This Object queue) {
            QueueHandoffs.beforeOtherRemoval();
            return QueueHandoffs.fifoWindowOpen(queue);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@Advice.This Object queue, @Advice.Enter boolean opened) {
            QueueHandoffs.afterOtherRemoval();
            QueueHandoffs.fifoWindowClose(queue, opened, -1);
        }
    }

    /** {@code LinkedBlockingDeque.addAll}: appends a chain without {@code linkLast}, in a window; rebuilt after if it added. */
    static final class FifoAppend {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static boolean enter(@Advice.This Object queue) {
            return QueueHandoffs.fifoWindowOpen(queue);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@Advice.This Object queue, @Advice.Enter boolean opened, @Advice.Return boolean added,
                         @Advice.Thrown Throwable thrown) {
            QueueHandoffs.fifoWindowClose(queue, opened, thrown == null && !added ? 0 : -1);
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

    /**
     * A removal other than the head's take that a FIFO queue's leaves account for: an iterator's
     * {@code remove}, {@code remove(Object)}, {@code removeIf}…, a deque's take from its tail or
     * {@code drainTo}; bracketed for back-pressure.
     */
    static final class QueueOtherRemoval {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static void enter() {
            QueueHandoffs.beforeOtherRemoval();
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit() {
            QueueHandoffs.afterOtherRemoval();
        }
    }

    /**
     * {@code ForkJoinPool.WorkQueue.push(task, pool, …)}, {@code lockedPush(task)} (JDK 17, no pool): a task
     * onto a work queue, whose {@code owner} is the worker whose own queue it is (null for a
     * submission queue). The pool argument is null for a {@code lazySubmit}, which is how a
     * virtual thread's continuation is pushed from its carrier.
     */
    static final class TaskPush {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static long enter(@Advices.RegionId int region, @Advice.Argument(0) Object task,
                          @Advice.Argument(value = 1, optional = true) Object pool,
                          @Advice.FieldValue("owner") Thread owner) {
            return TaskHandoffs.beforePush(task, pool, owner, region);
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
