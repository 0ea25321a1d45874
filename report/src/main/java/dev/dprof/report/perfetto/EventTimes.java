package dev.dprof.report.perfetto;

import dev.dprof.consolidator.analysis.messages.HandoffEdges;
import dev.dprof.consolidator.analysis.messages.MessageMatcher;
import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.format.EventKind;
import dev.dprof.format.profile.ProfileEvent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Where each event is drawn: the midpoint of its bound ({@link TraceClock#midpoint}), kept in its
 * thread's order ({@link ThreadTrack#at}) and, for a receive, never before its send. Perfetto
 * takes a flow's direction from time (an end before its start is dropped), and two midpoints can
 * invert even though the sound bounds say the send came first. Such a receive is drawn at its
 * send's time and counted; its bound, in its arguments, is unchanged.
 *
 * <p>Sends and receives are paired by the consolidator's rules ({@link MessageMatcher}); a TCP
 * write read by several reads flows to the first of them only. Handoffs between threads of one
 * process ({@link HandoffEdges}, the consolidator's rule too) flow the same way, one flow per
 * edge: a put taken by several threads starts several, and a take is drawn no sooner than its put.
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

    /** Handoff flows have ids of their own: this plus the edge's index. */
    static final long HANDOFF_FLOWS = 1L << 62;

    private final TraceClock clock;
    private final MessageMatcher<Flow> messages;
    private long nextFlowId = 1;
    private Flow flow;
    private long receivesMoved;
    private final HandoffEdges handoffs;
    /** Per source position, the edges that start there; per edge in flight, where its source was drawn. */
    private final Map<Long, List<Integer>> outgoing = new HashMap<>();
    private final Map<Integer, Long> sourceNanos = new HashMap<>();
    private long position;
    private int nextTarget;
    private long[] handoffsOut = new long[4];
    private int handoffsOutCount;
    private long[] handoffsIn = new long[4];
    private int handoffsInCount;

    EventTimes(ProfileInfo info, TraceClock clock, HandoffEdges handoffs) {
        this.clock = clock;
        this.messages = new MessageMatcher<>(info);
        this.handoffs = handoffs;
        for (int i = 0; i < handoffs.count(); i++) {
            outgoing.computeIfAbsent(handoffs.source(i), k -> new ArrayList<>()).add(i);
        }
    }

    /** The timestamp of {@code e}, the next event of {@code t} (events are placed in the profile's order). */
    long place(ProfileEvent e, ThreadTrack t) {
        long midpoint = clock.midpoint(e.lo, e.hi);
        handoffsInCount = 0;
        handoffsOutCount = 0;
        while (nextTarget < handoffs.count() && handoffs.target(nextTarget) < position) {
            nextTarget++;
        }
        for (; nextTarget < handoffs.count() && handoffs.target(nextTarget) == position; nextTarget++) {
            Long from = sourceNanos.remove(nextTarget);
            if (from != null) {
                handoffsIn = add(handoffsIn, handoffsInCount++, HANDOFF_FLOWS + nextTarget);
                if (midpoint < from) {
                    receivesMoved++;
                    midpoint = from;
                }
            }
        }
        long nanos = placeMessage(e, t, midpoint);
        List<Integer> out = outgoing.remove(position++);
        if (out != null) {
            for (int edge : out) {
                sourceNanos.put(edge, nanos);
                handoffsOut = add(handoffsOut, handoffsOutCount++, HANDOFF_FLOWS + edge);
            }
        }
        return nanos;
    }

    private static long[] add(long[] ids, int at, long id) {
        long[] grown = at < ids.length ? ids : Arrays.copyOf(ids, ids.length * 2);
        grown[at] = id;
        return grown;
    }

    private long placeMessage(ProfileEvent e, ThreadTrack t, long midpoint) {
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

    /** Handoff flows the event just placed starts (it is a put, or a take a back-pressure take waited for). */
    int handoffsOut() {
        return handoffsOutCount;
    }

    long handoffOut(int i) {
        return handoffsOut[i];
    }

    /** Handoff flows the event just placed ends (a take, a started thread's first event). */
    int handoffsIn() {
        return handoffsInCount;
    }

    long handoffIn(int i) {
        return handoffsIn[i];
    }

    /** Receives and takes drawn at their send's (put's) time rather than at their midpoint. */
    long receivesMoved() {
        return receivesMoved;
    }
}
