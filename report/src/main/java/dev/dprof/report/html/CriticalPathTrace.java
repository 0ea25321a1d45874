package dev.dprof.report.html;

import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.dprof.consolidator.analysis.messages.CollectiveMatcher;
import dev.dprof.consolidator.analysis.messages.HandoffEdges;
import dev.dprof.consolidator.analysis.messages.UnexplainedWaits;
import dev.dprof.consolidator.analysis.messages.MessageMatcher;
import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.profile.ProfileException;
import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.format.FormatException;
import dev.dprof.format.profile.ProfileEvent;
import dev.dprof.format.profile.ProfileEventsReader;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The critical path to draw on the timeline: followed back from the last event through the
 * predecessor that came last at every join (a matched receive: its send or its thread's previous
 * event; a barrier exit: the instance's last enter or its thread's previous event; a handoff's
 * take, a started thread's first event: its put or the thread's previous event, {@link HandoffEdges}),
 * judged by interval midpoints. It is a picture, not a bound — which predecessor came last can be uncertain
 * where intervals overlap; the sound statement is the per-region share ({@code CriticalPath}).
 * Memory: one entry per join where another thread was last, as for the messages of a run, and
 * one per handoff in flight.
 */
final class CriticalPathTrace {
    /** At {@code time} on its thread, the path came from {@code fromStream} at {@code fromTime}. */
    private record Hop(double time, int fromStream, double fromTime) {
    }

    private record Point(int stream, double time) {
    }

    private CriticalPathTrace() {
    }

    /** Segments {@code [stream, fromNs, toNs]} from the path's start to its end, ns from the first lower bound. */
    static void read(Profile profile, ArrayNode into) throws ProfileException {
        ProfileInfo info = profile.info();
        int streams = info.streams().size();
        double[] first = new double[streams];
        double[] last = new double[streams];
        boolean[] seen = new boolean[streams];
        List<List<Hop>> hops = new ArrayList<>();
        for (int s = 0; s < streams; s++) {
            hops.add(new ArrayList<>());
        }
        MessageMatcher<Point> matcher = new MessageMatcher<>(info);
        CollectiveMatcher<Point> collectives = new CollectiveMatcher<>();
        HandoffEdges handoffs = HandoffEdges.of(profile);
        Map<Long, Point> sources = new HashMap<>();
        Map<Long, Integer> uses = new HashMap<>();
        int nextTarget = 0;
        int nextSource = 0;
        double origin = Double.NaN;
        try (ProfileEventsReader events = profile.events()) {
            ProfileEvent e = new ProfileEvent();
            for (long position = 0; events.next(e); position++) {
                int s = e.stream;
                if (s < 0 || s >= streams || e.lo == Long.MIN_VALUE || e.hi == Long.MAX_VALUE
                        || UnexplainedWaits.isWait(e)) {
                    continue; // a wait's mark is no point of program order (UnexplainedWaits)
                }
                if (Double.isNaN(origin)) {
                    origin = e.lo;
                }
                double t = e.lo - origin + (e.hi - e.lo) / 2.0;
                Point from = switch (e.kind) {
                    case RECEIVE -> matcher.receive(e);
                    // the last enter before the exit by the collective's flavour (Becker §4.1)
                    case BARRIER_EXIT -> collectives.exit(e).stream().max(Comparator.comparingDouble(Point::time))
                            .orElse(null);
                    default -> null;
                };
                while (nextTarget < handoffs.count() && handoffs.target(nextTarget) < position) {
                    nextTarget++;
                }
                for (; nextTarget < handoffs.count() && handoffs.target(nextTarget) == position; nextTarget++) {
                    long source = handoffs.source(nextTarget);
                    Point put = sources.get(source);
                    if (put != null && (from == null || put.time() > from.time())) {
                        from = put;
                    }
                    if (put != null && uses.merge(source, -1, Integer::sum) == 0) {
                        sources.remove(source);
                        uses.remove(source);
                    }
                }
                // a started thread's first event comes from its start
                if (from != null && (!seen[s] || from.time() >= last[s]) && from.time() <= t) {
                    hops.get(s).add(new Hop(t, from.stream(), from.time()));
                }
                while (nextSource < handoffs.sources() && handoffs.sourcePosition(nextSource) < position) {
                    nextSource++;
                }
                if (nextSource < handoffs.sources() && handoffs.sourcePosition(nextSource) == position) {
                    sources.put(position, new Point(s, t));
                    uses.put(position, handoffs.sourceUses(nextSource));
                }
                switch (e.kind) {
                    case SEND -> matcher.send(e, new Point(s, t));
                    case BARRIER_ENTER -> collectives.enter(e, new Point(s, t));
                    default -> {
                    }
                }
                if (!seen[s]) {
                    seen[s] = true;
                    first[s] = t;
                }
                last[s] = t;
            }
        } catch (IOException | FormatException e) {
            throw new ProfileException(profile.dir() + ": " + e.getMessage());
        }
        int stream = -1;
        for (int s = 0; s < streams; s++) {
            if (seen[s] && (stream < 0 || last[s] > last[stream])) {
                stream = s;
            }
        }
        double nsPerTick = 1e9 / info.referenceTickHz();
        List<double[]> segments = new ArrayList<>();
        double time = stream < 0 ? 0 : last[stream];
        int budget = hops.stream().mapToInt(List::size).sum() + 1;
        while (stream >= 0 && budget-- > 0) {
            Hop hop = latestAtOrBefore(hops.get(stream), time);
            double start = hop == null ? first[stream] : hop.time();
            segments.add(new double[] {stream, start * nsPerTick, time * nsPerTick});
            if (hop == null || hop.fromTime() >= time) {
                break;
            }
            stream = hop.fromStream();
            time = hop.fromTime();
        }
        for (int i = segments.size() - 1; i >= 0; i--) {
            double[] seg = segments.get(i);
            into.addArray().add((int) seg[0]).add(Math.round(seg[1] * 10) / 10.0).add(Math.round(seg[2] * 10) / 10.0);
        }
    }

    private static Hop latestAtOrBefore(List<Hop> hops, double time) {
        int lo = 0;
        int hi = hops.size() - 1;
        Hop found = null;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (hops.get(mid).time() <= time) {
                found = hops.get(mid);
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found;
    }
}
