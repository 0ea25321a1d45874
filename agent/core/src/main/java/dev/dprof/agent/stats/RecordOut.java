package dev.dprof.agent.stats;

import dev.dprof.format.ByteSink;

/** Where the aggregator's records go: the drainer's writer for the process's queue. */
public interface RecordOut {
    /** The emptied buffer of the next record. */
    ByteSink start();

    /** Appends the record built since {@link #start}. */
    void append();
}
