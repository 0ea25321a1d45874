package dev.dprof.agent.bootstrap;

import java.util.concurrent.locks.ReentrantLock;

/**
 * One FIFO queue's handoffs ({@code ArrayBlockingQueue}, {@code LinkedBlockingQueue},
 * {@code LinkedBlockingDeque}), keyed by <em>position</em>: a put's key is the queue's insertion
 * number, and the take that removes the head records the number of the element at the head. While
 * elements leave only by takes of the head, the k-th take returns the k-th insertion, so the take
 * side is a counter (the <em>open run</em>, {@code [next, inserted]}) and no element is looked up
 * by reference. Every other change of the order is accounted for exactly, under the queue's own
 * lock, in {@link KeyRuns} before the open run: a removal from the middle at a known position
 * removes that number; an insertion at a deque's head prepends its number; a removal from the tail
 * takes the last number; {@code drainTo} drops its count from the head. Where a position cannot be
 * found (a bulk removal, a node too deep to walk to) every element present becomes
 * {@link KeyRuns#LOST}: their takes record nothing, counted ({@link HandoffStats#POSITION_LOST}),
 * and the numbers after them are exact again. So a take's key is never another element's.
 *
 * <p>Since the key is the position, not the reference, an element whose reference is already in
 * flight in the same queue (a poison pill, a cached boxed {@code Integer}) is no longer ambiguous:
 * each copy's take records its own put.
 *
 * <p>What runs under which lock ({@link QueueHandoffs} calls these from advice woven into the
 * queue's private leaf methods, which run under its locks): {@link #putLast} under the producer
 * lock ({@code putLock} of a {@code LinkedBlockingQueue}, else the one lock); {@link #takeFirst},
 * {@link #dropFirst}, {@link #headKey} and the window count under the consumer lock
 * ({@code takeLock}, else the one lock); everything else under both.
 *
 * <h2>Implementation notes</h2>
 * <ul>
 * <li>The producer's counter and the consumer's are single-writer fields, each guarded by the
 * lock its side holds anyway, so no extra synchronization: a put is one increment, a take one
 * increment and a test that the run list is empty. They live in separate padded objects, so a
 * producer and a consumer on two cores do not move each other's cache line; the rest of this
 * object is read-mostly.</li>
 * <li>{@link #lost} says the take side must be rebuilt from the queue's count under both locks
 * ({@link #forgetAll}): a new state (elements may be present that were never numbered), a
 * {@code drainTo} that threw. The take side records nothing meanwhile. It is read by both sides on
 * every call and written rarely.</li>
 * <li>A window ({@link #openWindow}) brackets a bulk operation whose effect on the order is
 * known only at its end ({@code clear}, {@code drainTo}, {@code removeIf}…, a deque's
 * {@code addAll}): takes during it still count but record nothing, removals from the middle are
 * not walked to, and its end repairs the take side — drops {@code drainTo}'s count from the head, or
 * rebuilds it from the queue's count.</li>
 * <li>Allocation-free in steady state: only {@link KeyRuns} grows, with the queue's irregularities.</li>
 * </ul>
 */
final class FifoHandoff {
    /** How the queue's count and nodes are read ({@link QueueInternals}). */
    static final int ARRAY = 0;
    static final int LINKED = 1;
    static final int DEQUE = 2;

    /** The producer's side: the last insertion number given ({@code p*}, {@code q*}: padding to a cache line each way). */
    static final class Producer {
        long p1, p2, p3, p4, p5, p6, p7;
        long inserted;
        long q1, q2, q3, q4, q5, q6, q7;
    }

    /** The consumer's side: the open run's first number, and whether anything but it must be consulted (padded alike). */
    static final class Consumer {
        long p1, p2, p3, p4, p5, p6, p7;
        long next = 1;
        /** Non-zero while the run list is not empty or a window is open: the take takes the slow path. */
        long irregular;
        long q1, q2, q3, q4, q5, q6, q7;
    }

    final long channel;
    /** False for the agent's own queues: nothing is recorded for them. */
    final boolean recorded;
    /** The queue's capacity if it is bounded (a put may block on it when full), else 0. */
    final int capacity;
    final int kind;
    /** The lock every insertion holds, if the queue has one of its own ({@code putLock}), else null. */
    final ReentrantLock producerLock;
    /** The lock every removal holds ({@code takeLock}, or the queue's one lock). */
    final ReentrantLock consumerLock;
    private final QueueSite where;
    private final Producer producer = new Producer();
    private final Consumer consumer = new Consumer();
    /** The order before the open run; the consumer lock guards it (and both locks any change but a take). */
    private final KeyRuns runs = new KeyRuns();
    /** The take side must be rebuilt under both locks before it records again. */
    boolean lost = true;
    /** What the elements present at a rebuild are: {@link KeyRuns#PRESENT} at the first, else {@link KeyRuns#LOST}. */
    private long unknownKind = KeyRuns.PRESENT;
    private int windows;
    /** A removal from the middle ran during a window and was not accounted for: its end must rebuild. */
    private boolean dirty;

    FifoHandoff(long channel, String className, String site, boolean recorded, int capacity, int kind,
                ReentrantLock producerLock, ReentrantLock consumerLock) {
        this.channel = channel;
        this.where = new QueueSite(className, site);
        this.recorded = recorded;
        this.capacity = capacity;
        this.kind = kind;
        this.producerLock = producerLock;
        this.consumerLock = consumerLock;
    }

    int region() {
        return where.region();
    }

    /** An insertion at the tail: its key (producer lock). */
    long putLast() {
        return ++producer.inserted;
    }

    /** The head was removed by a take: its key, or 0 when it is not known (consumer lock). */
    long takeFirst() {
        Consumer c = consumer;
        if (c.irregular == 0) {
            return c.next++;
        }
        long key = runs.runs() > 0 ? runs.takeFirst() : c.next++;
        return settled(key);
    }

    /** A take that recorded nothing because the take side is {@link #lost}. */
    void countLostTake() {
        countUnknown(unknownKind);
    }

    /**
     * The key a take stamps for the position {@code key}: 0, counted, when the position is not known
     * or lies in a window of lost positions; then the accounting settles.
     */
    private long settled(long key) {
        if (key <= 0) {
            countUnknown(key);
            key = 0;
        } else if (windows > 0) {
            HandoffStats.POSITION_LOST.increment();
            key = 0;
        }
        settle();
        return key;
    }

    private static void countUnknown(long key) {
        if (key == KeyRuns.PRESENT) {
            HandoffStats.UNMATCHED_TAKES.increment();
        } else {
            HandoffStats.POSITION_LOST.increment();
        }
    }

    private void settle() {
        consumer.irregular = runs.runs() + windows;
    }

    /** The elements of the open run, which follow the run list (both locks, or the producer's own count read racily is not enough). */
    private long openRun() {
        return producer.inserted - consumer.next + 1;
    }

    /** Moves the open run into the run list, so that it can change anywhere (both locks). */
    private void closeOpenRun() {
        long n = openRun();
        if (n > 0) {
            runs.addLast(consumer.next, (int) n);
        }
        consumer.next = producer.inserted + 1;
    }

    /** An insertion at the head of a deque: its key (both locks). */
    long putFirst() {
        closeOpenRun();
        long key = ++producer.inserted;
        consumer.next = key + 1;
        runs.addFirst(key, 1);
        settle();
        return key;
    }

    /** The tail of a deque was removed by a take: its key, or 0 (both locks). */
    long takeLast() {
        long key;
        if (openRun() > 0) {
            long last = producer.inserted;
            if (last > consumer.next) {
                runs.addLast(consumer.next, (int) (last - consumer.next));
            }
            consumer.next = last + 1;
            key = last;
        } else if (runs.runs() > 0) {
            key = runs.takeLast();
        } else {
            key = KeyRuns.LOST; // more removed than we counted in: cannot happen while the accounting holds
        }
        return settled(key);
    }

    /**
     * The element at {@code position} (0: the head) is being removed from the middle, with
     * {@code present} elements in the queue before the removal (both locks). If the accounting does
     * not cover {@code present} elements, everything is forgotten instead: never a wrong key.
     */
    void removeAt(long position, int present) {
        if (windows > 0) {
            dirty = true; // the window's end rebuilds: no walk, no accounting now
            return;
        }
        closeOpenRun();
        if (runs.elements() != present || position < 0 || position >= present) {
            forgetAll(present - 1);
            return;
        }
        if (runs.removeAt(position) > 0) {
            HandoffStats.DEPARTED.increment();
        }
        settle();
    }

    /** {@code n} elements left from the head without a take ({@code drainTo}; consumer lock). */
    void dropFirst(long n) {
        long fromRuns = Math.min(n, runs.elements());
        long departed = runs.dropFirst(fromRuns);
        consumer.next += n - fromRuns;
        HandoffStats.DEPARTED.add(departed + n - fromRuns);
        settle();
    }

    /**
     * The take side is rebuilt: the {@code present} elements in the queue now are of unknown
     * numbers, and the next insertion's number follows them (both locks).
     */
    void forgetAll(int present) {
        runs.clear();
        if (present > 0) {
            runs.addLast(unknownKind, present);
        }
        unknownKind = KeyRuns.LOST;
        consumer.next = producer.inserted + 1;
        lost = false;
        settle();
    }

    /** A bulk operation begins whose effect on the order is known only at its end (consumer lock). */
    void openWindow() {
        windows++;
        settle();
    }

    /** Whether a window is open: removals from the middle are then left to its end (both locks, or the consumer's). */
    boolean inWindow() {
        return windows > 0;
    }

    /** Whether a window's end must rebuild rather than drop its count from the head (consumer lock). */
    boolean dirty() {
        return dirty;
    }

    /** The window's operation ended, after the repair its caller made. */
    void closeWindow() {
        if (--windows == 0) {
            dirty = false;
        }
        settle();
    }

    /** The key the next take of the head will record, or 0 if it records none (consumer lock). */
    long headKey() {
        if (lost || windows > 0) {
            return 0;
        }
        if (runs.runs() > 0) {
            long first = runs.peekFirst();
            return first > 0 ? first : 0;
        }
        return consumer.next;
    }

    /** The elements the take side accounts for (both locks): what the queue's count must be. */
    long accounted() {
        return runs.elements() + Math.max(0, openRun());
    }

    /** Runs held beside the open run: what a leak would make grow. */
    int runs() {
        return runs.runs();
    }
}
