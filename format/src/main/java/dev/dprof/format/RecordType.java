package dev.dprof.format;

/**
 * The first byte of every document in a process's queue says what follows. The layout of
 * each is in {@code docs/FORMAT.md}; {@link #FORMAT_VERSION} is written in the header and a
 * reader refuses versions it does not know.
 *
 * <p>Version 2 gave the barrier events' second payload a collective shape ({@link CollectiveShape});
 * a version 1 payload (participants) reads as an N-to-N shape, so both are read alike. Version 3
 * gave the TCP events' first payload the process's connection number, described by a
 * {@link #CONNECTION} record, instead of the two ports ({@link TcpRegions}); versions 1 and 2 are
 * still read, their TCP flows by ports. Version 4 writes each communicating event of a batch once,
 * in the batch's communication index, with a one-byte marker among the events
 * ({@link EventBatchEncoder#FLAG_MARKED}); a batch says which layout it has, so batches of every
 * version are read alike.
 */
public final class RecordType {
    public static final int FORMAT_VERSION = 4;
    /** The first version whose TCP events name a {@link #CONNECTION} record rather than two ports. */
    public static final int TCP_CONNECTIONS_VERSION = 3;
    /** The first version whose batches write each communicating event once, in the index ({@link EventBatchEncoder#FLAG_MARKED}). */
    public static final int MARKED_BATCHES_VERSION = 4;
    /** The oldest version this build still reads. */
    public static final int OLDEST_READABLE_VERSION = 1;

    public static final int HEADER = 'H';
    public static final int REGION = 'R';
    public static final int THREAD = 'T';
    public static final int BATCH = 'B';
    public static final int END = 'E';
    /**
     * What was woven for the YAML's regions ({@link WeavingSummary}), just before {@link #END}; added
     * within version 2: a queue without it reads as before, and a reader older than it skips it as an
     * unknown record and says so.
     */
    public static final int WEAVING = 'W';
    /**
     * A thread's ring's cumulative count of dropped events ({@link ThreadLoss}); added within version 2:
     * a queue without it reads as before, and a reader older than it skips it as an unknown record and
     * says so.
     */
    public static final int LOSS = 'L';
    /**
     * A TCP connection's endpoints ({@link TcpConnection}), before any batch holding its events; added
     * in version 3.
     */
    public static final int CONNECTION = 'C';
    /**
     * Whether the process's counter can be one clock domain ({@link ClockCheck}), written once the
     * agent's check has run, shortly after the header; added within version 3: a queue without it
     * reads as before (its domain keeps its bounds, unchecked), and a reader older than it skips it as
     * an unknown record and says so.
     */
    public static final int CLOCK_CHECK = 'K';
    /**
     * One region's figures over one interval of a run in statistics mode ({@link IntervalStatistics}):
     * counts, tick sums and a histogram instead of the events; added in version 4: a queue without
     * it reads as before, and a reader older than it skips it as an unknown record and says so.
     */
    public static final int STATISTICS = 'S';
    /**
     * A trace window of statistics mode ({@link TraceWindow}): when the events were written too; added
     * in version 4 like {@link #STATISTICS}.
     */
    public static final int TRACE_WINDOW = 'V';

    private RecordType() {
    }
}
