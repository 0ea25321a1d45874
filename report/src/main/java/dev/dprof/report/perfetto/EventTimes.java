package dev.dprof.report.perfetto;

import dev.dprof.consolidator.analysis.messages.MessageMatcher;
import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.format.EventKind;
import dev.dprof.format.profile.ProfileEvent;

/**
 * Where each event is drawn: the midpoint of its bound ({@link TraceClock#midpoint}), kept in its
 * thread's order ({@link ThreadTrack#at}) and, for a receive, never before its send. Perfetto
 * takes a flow's direction from time (an end before its start is dropped), and two midpoints can
 * invert even though the sound bounds say the send came first. Such a receive is drawn at its
 * send's time and counted; its bound, in its arguments, is unchanged.
 *
 * <p>Sends and receives are paired by the consolidator's rules ({@link MessageMatcher}); a TCP
 * write read by several reads flows to the first of them only.
 */
final class EventTimes {
    /** The flow a send starts: its id, where the send is drawn, and whether a receive ended it. */
    static final class Flow {
        final long id;
        final long sendNanos;
        boolean ended;

        Flow(long id, long sendNanos) {
            this.id = id;
            this.sendNanos = sendNanos;
        }
    }

    private final TraceClock clock;
    private final MessageMatcher<Flow> messages;
    private long nextFlowId = 1;
    private Flow flow;
    private long receivesMoved;

    EventTimes(ProfileInfo info, TraceClock clock) {
        this.clock = clock;
        this.messages = new MessageMatcher<>(info);
    }

    /** The timestamp of {@code e}, the next event of {@code t}. */
    long place(ProfileEvent e, ThreadTrack t) {
        long midpoint = clock.midpoint(e.lo, e.hi);
        flow = null;
        if (e.kind == EventKind.SEND) {
            long nanos = t.at(midpoint);
            flow = new Flow(nextFlowId++, nanos);
            messages.send(e, flow);
            return nanos;
        }
        if (e.kind == EventKind.RECEIVE) {
            Flow from = messages.receive(e);
            if (from != null && !from.ended) {
                from.ended = true;
                flow = from;
                if (midpoint < from.sendNanos) {
                    receivesMoved++;
                    midpoint = from.sendNanos;
                }
            }
        }
        return t.at(midpoint);
    }

    /** The flow the event just placed starts (a send) or ends (its first matched receive); else null. */
    Flow flow() {
        return flow;
    }

    /** Receives drawn at their send's time rather than at their midpoint. */
    long receivesMoved() {
        return receivesMoved;
    }
}
