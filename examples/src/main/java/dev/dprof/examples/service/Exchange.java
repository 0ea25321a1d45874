package dev.dprof.examples.service;

/**
 * One request on its way through the server's pipeline ({@link Server}): decoded by its
 * connection's reader, computed by a pool thread, synced by the {@link Journal}, answered by its
 * connection's writer. Each request is a new object, so no element is ever in two places of a
 * queue at once (a profiler that follows queue elements by reference needs that). An exchange
 * without a connection ({@link #end}) tells the stage that takes it that no more will come.
 */
final class Exchange {
    private static final int END = -1;

    /** The connection the request came on, whose writer sends the answer. */
    final int connection;
    /** The request id, sent back with the answer. */
    final long seq;
    final long key;
    final long rounds;
    /** The work factor a straggling client asks for (1: its answer computed once). */
    final double factor;
    /** Written by the pool thread that computed it, read by the journal and the writer after a queue's handoff. */
    long answer;

    Exchange(int connection, long seq, long key, long rounds, double factor) {
        this.connection = connection;
        this.seq = seq;
        this.key = key;
        this.rounds = rounds;
        this.factor = factor;
    }

    /** A new end-of-stream marker (a new object each time: never the same element twice in one queue). */
    static Exchange end() {
        return new Exchange(END, 0, 0, 0, 1);
    }

    boolean isEnd() {
        return connection == END;
    }
}
