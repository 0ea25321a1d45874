package dev.dprof.consolidator.read;

import dev.dprof.format.ClockCheck;
import dev.dprof.format.EventBatchReader;
import dev.dprof.format.FormatException;
import dev.dprof.format.IntervalStatistics;
import dev.dprof.format.ProcessEnd;
import dev.dprof.format.RegionInfo;
import dev.dprof.format.TcpConnection;
import dev.dprof.format.ThreadInfo;
import dev.dprof.format.ThreadLoss;
import dev.dprof.format.TraceWindow;
import dev.dprof.format.WeavingSummary;

/** Receives a process queue's records in the order they were written. */
public interface RecordVisitor {
    default void region(RegionInfo region) {
    }

    default void thread(ThreadInfo thread) {
    }

    /** A batch of one thread's events; iterate with {@link EventBatchReader#next()}. */
    default void batch(EventBatchReader events) throws FormatException {
    }

    /** What the agent wove for the YAML's regions; only a process that ended normally wrote it. */
    default void clockCheck(ClockCheck check) {
    }

    default void weaving(WeavingSummary weaving) {
    }

    /** How many events a thread's ring had dropped so far (cumulative; see {@link ProcessQueue#loss}). */
    default void loss(ThreadLoss loss) {
    }

    default void end(ProcessEnd end) {
    }

    /** A TCP connection's endpoints (format version 3); it comes before any batch holding its events. */
    default void connection(TcpConnection connection) {
    }

    /** One region's figures over one interval of a process in statistics mode. */
    default void statistics(IntervalStatistics statistics) {
    }

    /** A trace window of a process in statistics mode: its batches come from such windows only. */
    default void traceWindow(TraceWindow window) {
    }

    /**
     * A visitor that hands every record on to another, for visitors that look at some records on
     * the way (a count, a split): whatever they do not override reaches the visitor behind them, so a
     * record kind added later is never dropped by one of them.
     */
    abstract class Forwarding implements RecordVisitor {
        protected final RecordVisitor next;

        protected Forwarding(RecordVisitor next) {
            this.next = next;
        }

        @Override
        public void region(RegionInfo region) {
            next.region(region);
        }

        @Override
        public void thread(ThreadInfo thread) {
            next.thread(thread);
        }

        @Override
        public void batch(EventBatchReader events) throws FormatException {
            next.batch(events);
        }

        @Override
        public void clockCheck(ClockCheck check) {
            next.clockCheck(check);
        }

        @Override
        public void weaving(WeavingSummary weaving) {
            next.weaving(weaving);
        }

        @Override
        public void loss(ThreadLoss loss) {
            next.loss(loss);
        }

        @Override
        public void end(ProcessEnd end) {
            next.end(end);
        }

        @Override
        public void connection(TcpConnection connection) {
            next.connection(connection);
        }

        @Override
        public void statistics(IntervalStatistics statistics) {
            next.statistics(statistics);
        }

        @Override
        public void traceWindow(TraceWindow window) {
            next.traceWindow(window);
        }
    }
}
