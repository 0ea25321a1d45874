package dev.dprof.agent.bootstrap;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The private state of the JDK's FIFO queues that {@link FifoHandoff} needs off the hot path: each
 * queue's count and locks, and its nodes, to find the position of one removed from the middle.
 * Field names are the same on JDK 17 and 25; the agent opens {@code java.util.concurrent} to the
 * probes' module before it weaves.
 *
 * <h2>Implementation notes</h2>
 * <ul>
 * <li>{@link VarHandle}s found once; if any is missing ({@link #AVAILABLE} false: the package is
 * not open, a JDK with other fields) the FIFO queues are not recorded at all — never guessed.</li>
 * <li>A walk to a node stops after {@value #MAX_WALK} nodes: the caller then forgets the order
 * (edges dropped, counted) rather than spend more than the removal itself did.</li>
 * </ul>
 */
final class QueueInternals {
    static final int MAX_WALK = 4096;
    static final boolean AVAILABLE;
    private static final VarHandle ARRAY_COUNT;
    private static final VarHandle ARRAY_LOCK;
    private static final VarHandle LINKED_COUNT;
    private static final VarHandle LINKED_HEAD;
    private static final VarHandle LINKED_PUT_LOCK;
    private static final VarHandle LINKED_TAKE_LOCK;
    private static final VarHandle LINKED_NEXT;
    private static final VarHandle DEQUE_COUNT;
    private static final VarHandle DEQUE_LOCK;
    private static final VarHandle DEQUE_FIRST;
    private static final VarHandle DEQUE_LAST;
    private static final VarHandle DEQUE_NEXT;
    private static final VarHandle DEQUE_PREV;
    private static final VarHandle ARRAY_ITEMS;
    private static final VarHandle LINKED_CAPACITY;
    private static final VarHandle DEQUE_CAPACITY;

    static {
        VarHandle[] h = new VarHandle[16];
        boolean ok;
        try {
            MethodHandles.Lookup us = MethodHandles.lookup();
            MethodHandles.Lookup a = MethodHandles.privateLookupIn(ArrayBlockingQueue.class, us);
            h[0] = a.findVarHandle(ArrayBlockingQueue.class, "count", int.class);
            h[1] = a.findVarHandle(ArrayBlockingQueue.class, "lock", ReentrantLock.class);
            MethodHandles.Lookup l = MethodHandles.privateLookupIn(LinkedBlockingQueue.class, us);
            Class<?> linkedNode = Class.forName("java.util.concurrent.LinkedBlockingQueue$Node");
            h[2] = l.findVarHandle(LinkedBlockingQueue.class, "count", AtomicInteger.class);
            h[3] = l.findVarHandle(LinkedBlockingQueue.class, "head", linkedNode);
            h[4] = l.findVarHandle(LinkedBlockingQueue.class, "putLock", ReentrantLock.class);
            h[5] = l.findVarHandle(LinkedBlockingQueue.class, "takeLock", ReentrantLock.class);
            h[6] = MethodHandles.privateLookupIn(linkedNode, us).findVarHandle(linkedNode, "next", linkedNode);
            MethodHandles.Lookup d = MethodHandles.privateLookupIn(LinkedBlockingDeque.class, us);
            Class<?> dequeNode = Class.forName("java.util.concurrent.LinkedBlockingDeque$Node");
            h[7] = d.findVarHandle(LinkedBlockingDeque.class, "count", int.class);
            h[8] = d.findVarHandle(LinkedBlockingDeque.class, "lock", ReentrantLock.class);
            h[9] = d.findVarHandle(LinkedBlockingDeque.class, "first", dequeNode);
            h[10] = d.findVarHandle(LinkedBlockingDeque.class, "last", dequeNode);
            MethodHandles.Lookup dn = MethodHandles.privateLookupIn(dequeNode, us);
            h[11] = dn.findVarHandle(dequeNode, "next", dequeNode);
            h[12] = dn.findVarHandle(dequeNode, "prev", dequeNode);
            h[13] = a.findVarHandle(ArrayBlockingQueue.class, "items", Object[].class);
            h[14] = l.findVarHandle(LinkedBlockingQueue.class, "capacity", int.class);
            h[15] = d.findVarHandle(LinkedBlockingDeque.class, "capacity", int.class);
            ok = true;
        } catch (ReflectiveOperationException | RuntimeException e) {
            ok = false;
        }
        AVAILABLE = ok;
        ARRAY_COUNT = h[0];
        ARRAY_LOCK = h[1];
        LINKED_COUNT = h[2];
        LINKED_HEAD = h[3];
        LINKED_PUT_LOCK = h[4];
        LINKED_TAKE_LOCK = h[5];
        LINKED_NEXT = h[6];
        DEQUE_COUNT = h[7];
        DEQUE_LOCK = h[8];
        DEQUE_FIRST = h[9];
        DEQUE_LAST = h[10];
        DEQUE_NEXT = h[11];
        DEQUE_PREV = h[12];
        ARRAY_ITEMS = h[13];
        LINKED_CAPACITY = h[14];
        DEQUE_CAPACITY = h[15];
    }

    private QueueInternals() {
    }

    /** {@link FifoHandoff#ARRAY}, {@link FifoHandoff#LINKED}, {@link FifoHandoff#DEQUE}, or -1 for another queue. */
    static int kind(Object queue) {
        if (!AVAILABLE) {
            return -1;
        }
        if (queue instanceof ArrayBlockingQueue<?>) {
            return FifoHandoff.ARRAY;
        }
        if (queue instanceof LinkedBlockingQueue<?>) {
            return FifoHandoff.LINKED;
        }
        return queue instanceof LinkedBlockingDeque<?> ? FifoHandoff.DEQUE : -1;
    }

    /** The elements in the queue: exact only under the locks its removals and insertions hold. */
    static int count(Object queue, int kind) {
        return switch (kind) {
            case FifoHandoff.ARRAY -> (int) ARRAY_COUNT.get(queue);
            case FifoHandoff.LINKED -> ((AtomicInteger) LINKED_COUNT.get(queue)).get();
            default -> (int) DEQUE_COUNT.get(queue);
        };
    }

    /** The queue's capacity if it is bounded (a put may wait when it is full), else 0; fixed at construction. */
    static int capacity(Object queue, int kind) {
        int capacity = switch (kind) {
            case FifoHandoff.ARRAY -> ((Object[]) ARRAY_ITEMS.get(queue)).length;
            case FifoHandoff.LINKED -> (int) LINKED_CAPACITY.get(queue);
            default -> (int) DEQUE_CAPACITY.get(queue);
        };
        return capacity == Integer.MAX_VALUE ? 0 : capacity;
    }

    /** The lock of the queue's insertions if they have one of their own ({@code putLock}), else null. */
    static ReentrantLock producerLock(Object queue, int kind) {
        return kind == FifoHandoff.LINKED ? (ReentrantLock) LINKED_PUT_LOCK.get(queue) : null;
    }

    /** The lock every removal of the queue holds. */
    static ReentrantLock consumerLock(Object queue, int kind) {
        return switch (kind) {
            case FifoHandoff.ARRAY -> (ReentrantLock) ARRAY_LOCK.get(queue);
            case FifoHandoff.LINKED -> (ReentrantLock) LINKED_TAKE_LOCK.get(queue);
            default -> (ReentrantLock) DEQUE_LOCK.get(queue);
        };
    }

    /** Position of {@code node} in a {@code LinkedBlockingQueue} (0: the first element), or -1 if not found within {@link #MAX_WALK}. */
    static long linkedPosition(Object queue, Object node) {
        Object p = LINKED_NEXT.get(LINKED_HEAD.get(queue)); // head is a dummy node
        for (int i = 0; p != null && i < MAX_WALK; i++) {
            if (p == node) {
                return i;
            }
            p = LINKED_NEXT.get(p);
        }
        return -1;
    }

    /** Whether {@code node} of a {@code LinkedBlockingDeque} has a node on both sides (its removal is from the middle). */
    static boolean dequeInterior(Object node) {
        return DEQUE_PREV.get(node) != null && DEQUE_NEXT.get(node) != null;
    }

    /**
     * Position of {@code node} in a {@code LinkedBlockingDeque} of {@code count} elements, walking
     * from both ends at once, or -1 if not found within {@link #MAX_WALK} steps from either.
     */
    static long dequePosition(Object queue, Object node, int count) {
        Object f = DEQUE_FIRST.get(queue);
        Object l = DEQUE_LAST.get(queue);
        for (int i = 0; i < MAX_WALK && (f != null || l != null); i++) {
            if (f == node) {
                return i;
            }
            if (l == node) {
                return count - 1 - i;
            }
            f = f == null ? null : DEQUE_NEXT.get(f);
            l = l == null ? null : DEQUE_PREV.get(l);
        }
        return -1;
    }
}
