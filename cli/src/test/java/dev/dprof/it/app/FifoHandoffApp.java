package dev.dprof.it.app;

import dev.dprof.api.DProf;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingDeque;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@code FifoHandoffApp N}: for each FIFO queue the agent keys by position, a producer puts
 * {@code N} items (a poison pill, one shared object, every 50th), a consumer takes them, and a
 * third thread disturbs the order meanwhile: {@code remove(Object)}, an iterator's
 * {@code remove}, {@code drainTo}, {@code removeIf}, {@code clear}; on the deque also puts at the
 * head, takes from the tail, {@code removeLastOccurrence} and {@code addAll}. Each queue is made in
 * a method of its own, which is its site.
 *
 * <p>Markers for the check ({@code FifoHandoffIT}): the producer calls {@code DProf.send} with the
 * item's value (a pill's: minus its ordinal) just before each put, so its next {@code HANDOFF_PUT}
 * is that item's; the consumer calls it with the value it took (a pill's: 0) just after each take,
 * so a {@code HANDOFF_TAKE} right before is that take's.
 */
public final class FifoHandoffApp {
    static final class Item {
        final long value;

        Item(long value) {
            this.value = value;
        }
    }

    static final Item PILL = new Item(0);

    private FifoHandoffApp() {
    }

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]);
        run("array", array(), n);
        run("linked", linked(), n);
        run("bounded", bounded(), n);
        run("deque", deque(), n);
    }

    static BlockingQueue<Item> array() {
        return new ArrayBlockingQueue<>(8);
    }

    static BlockingQueue<Item> linked() {
        return new LinkedBlockingQueue<>();
    }

    static BlockingQueue<Item> bounded() {
        return new LinkedBlockingQueue<>(8);
    }

    static BlockingQueue<Item> deque() {
        return new LinkedBlockingDeque<>(8);
    }

    static void run(String name, BlockingQueue<Item> q, int n) throws InterruptedException {
        AtomicBoolean produced = new AtomicBoolean();
        AtomicBoolean disturbed = new AtomicBoolean();
        BlockingDeque<Item> deque = q instanceof BlockingDeque<Item> d ? d : null;
        Thread producer = new Thread(() -> {
            try {
                for (long v = 1; v <= n; v++) {
                    Item it = v % 50 == 0 ? PILL : new Item(v);
                    DProf.send("fifo-put", it == PILL ? -v : v);
                    if (deque != null && v % 4 == 0) {
                        deque.putFirst(it);
                    } else if (v % 2 == 0) {
                        q.put(it);
                    } else if (!q.offer(it, 1, TimeUnit.MINUTES)) {
                        throw new IllegalStateException("offer timed out");
                    }
                }
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            } finally {
                produced.set(true);
            }
        }, "producer-" + name);
        Thread consumer = new Thread(() -> {
            try {
                for (long i = 0; !(produced.get() && disturbed.get() && q.isEmpty()); i++) {
                    Item it = deque != null && i % 3 == 0 ? deque.pollLast(1, TimeUnit.MILLISECONDS)
                            : q.poll(1, TimeUnit.MILLISECONDS);
                    if (it != null) {
                        DProf.send("fifo-took", it.value);
                    }
                }
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }, "consumer-" + name);
        Thread disturber = new Thread(() -> {
            try {
                for (int i = 0; !produced.get(); i++) {
                    disturb(q, deque, i);
                    Thread.sleep(0, 200_000);
                }
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            } finally {
                disturbed.set(true);
            }
        }, "disturber-" + name);
        producer.start();
        consumer.start();
        disturber.start();
        producer.join();
        disturber.join();
        consumer.join();
        System.out.println("fifo " + name + " done");
    }

    private static void disturb(BlockingQueue<Item> q, BlockingDeque<Item> deque, int i) {
        Object[] present = q.toArray();
        switch (i % 8) {
            case 0, 1 -> {
                if (present.length > 1) {
                    q.remove(present[present.length / 2]);
                }
            }
            case 2, 3 -> {
                Iterator<Item> it = q.iterator();
                if (it.hasNext()) {
                    it.next();
                    if (it.hasNext()) {
                        it.next();
                        it.remove();
                    }
                }
            }
            case 4 -> q.drainTo(new ArrayList<>(), 2);
            case 5 -> {
                if (i % 40 == 5) {
                    q.removeIf(it -> it.value % 3 == 0);
                } else if (i % 40 == 13) {
                    q.clear();
                }
            }
            case 6 -> {
                if (deque != null && present.length > 0) {
                    deque.removeLastOccurrence(present[0]);
                }
            }
            default -> {
                if (deque != null && i % 24 == 7 && deque.remainingCapacity() > 2) {
                    deque.addAll(List.of(new Item(-1), new Item(-2)));
                }
            }
        }
    }
}
