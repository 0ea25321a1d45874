package dev.dprof.it.app;

import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * Messages, barriers and progress points whose keys the YAML reads from arguments, fields,
 * getters, return values, constants and system properties. Thread {@code sender} sends
 * {@link #MESSAGES} messages on channel {@code orders} (key: the message's {@code seq}) and as
 * many ids on channel {@code ids} (key: the id string); thread {@code receiver} receives them
 * (keys: the returned seq and id). Thread {@code other} then runs {@link Outbox}, {@link Inbox},
 * {@link Phase}, {@link Solver} and {@link Ranked} with the values documented on each.
 */
public final class MessagingApp {
    public static final int MESSAGES = 3;

    private MessagingApp() {
    }

    public static void main(String[] args) throws InterruptedException {
        Channel channel = new Channel();
        Thread sender = new Thread(() -> {
            for (int seq = 1; seq <= MESSAGES; seq++) {
                channel.send("orders", new Message("id-" + seq, seq));
                channel.sendId("ids", "id-" + seq);
            }
        }, "sender");
        StringBuilder received = new StringBuilder();
        Thread receiver = new Thread(() -> {
            for (int i = 0; i < MESSAGES; i++) {
                received.append(channel.receive("orders")).append(':').append(channel.receiveId("ids")).append(' ');
            }
        }, "receiver");
        sender.start();
        receiver.start();
        sender.join();
        receiver.join();
        System.out.println("received " + received.toString().trim());

        Thread other = new Thread(MessagingApp::other, "other");
        other.start();
        other.join();
        System.out.println("done");
    }

    private static void other() {
        Outbox outbox = new Outbox(100);
        outbox.flush();
        outbox.flush();
        outbox.ping();
        Inbox inbox = new Inbox();
        inbox.accept(new Message("x", 100));
        inbox.accept(new Message("y", 101));
        Phase phase = new Phase(5);
        phase.await();
        phase.await();
        phase.arrive(11);
        Solver solver = new Solver();
        for (int i = 0; i < 4; i++) {
            solver.step();
        }
        solver.solve(2);
        solver.solve(3);
        new Ranked().work();
        System.out.println("generation " + phase.generation() + ", steps " + solver.steps + ", next " + outbox.nextSeq);
    }

    /** A message: the key of channel {@code orders} is its {@code seq} field. */
    public static final class Message {
        final String id;
        final long seq;

        Message(String id, long seq) {
            this.id = id;
            this.seq = seq;
        }

        long seq() {
            return seq;
        }
    }

    /** Two channels between threads. */
    public static final class Channel {
        private final Map<String, BlockingQueue<Object>> queues = new ConcurrentHashMap<>();

        private BlockingQueue<Object> queue(String name) {
            return queues.computeIfAbsent(name, n -> new LinkedBlockingQueue<>());
        }

        /** YAML: send, channel {arg: 0}, key {arg: 1, field: seq}. */
        void send(String channel, Message m) {
            queue(channel).add(m);
        }

        /** YAML: receive, channel {arg: 0}, key {return: true} (a long: by value). */
        long receive(String channel) {
            return ((Message) take(channel)).seq;
        }

        /** YAML: send, channel {arg: 0}, key {arg: 1} (a string: hashed). */
        void sendId(String channel, String id) {
            queue(channel).add(id);
        }

        /** YAML: receive, channel {arg: 0}, key {return: true} (a string: hashed the same way). */
        String receiveId(String channel) {
            return (String) take(channel);
        }

        private Object take(String channel) {
            try {
                return queue(channel).take();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /** Sends on the constant channel {@code outbox}; {@code flush()} keys 100 and 101. */
    public static final class Outbox {
        int nextSeq;

        Outbox(int first) {
            nextSeq = first;
        }

        /** YAML: send, channel outbox (a constant), key {field: nextSeq}; the key is read before the body. */
        void flush() {
            nextSeq++;
        }

        /** YAML: send, channel {property: it.channel}, key {const: 42}. */
        void ping() {
            nextSeq += 0;
        }
    }

    /** Receives on the constant channel {@code outbox}. */
    public static final class Inbox {
        long last;

        /** YAML: receive, channel outbox, key {arg: 0, getter: seq}. */
        void accept(Message m) {
            last = m.seq();
        }
    }

    /** A barrier whose instance is its generation, which each {@code await()} advances (5, then 6). */
    public static final class Phase {
        private int generation;

        Phase(int generation) {
            this.generation = generation;
        }

        int generation() {
            return generation;
        }

        /** YAML: barrier, key {getter: generation}, participants {property: it.parties}. */
        void await() {
            generation++;
        }

        /** YAML: barrier, key {arg: 0}, participants 3. */
        void arrive(int round) {
            generation += round - round;
        }
    }

    /** Progress points and a region per rank. */
    public static final class Solver {
        int steps;

        /** YAML: progress. */
        void step() {
            steps++;
        }

        /** YAML: plain, instance {arg: 0}. */
        void solve(int rank) {
            steps += rank - rank;
        }
    }

    /** YAML: plain, instance {property: it.rank}. */
    public static final class Ranked {
        int work() {
            return 1;
        }
    }
}
