package dev.dprof.consolidator.sync;

import dev.dprof.consolidator.analysis.messages.MessageMatcher;
import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.profile.ProfileException;
import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.format.FormatException;
import dev.dprof.format.profile.ProfileEvent;
import dev.dprof.format.profile.ProfileEventsReader;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The raw ticks of every matched message between two clock domains, by domain pair (processes of
 * one domain read one counter, so their messages say nothing about clocks and are left out), and
 * the master process's events placed on the reference (the frame the point methods write in when
 * the profile has no calibration exchanges).
 */
final class MessagePairs {
    /** One direction of a pair's messages: the sender's and the receiver's ticks. */
    static final class Direction {
        long[] sent = new long[64];
        long[] received = new long[64];
        int n;

        /** A copy, to add points to without changing this one. */
        Direction copy() {
            Direction d = new Direction();
            d.sent = java.util.Arrays.copyOf(sent, Math.max(64, n));
            d.received = java.util.Arrays.copyOf(received, Math.max(64, n));
            d.n = n;
            return d;
        }

        void add(long s, long r) {
            if (n == sent.length) {
                sent = java.util.Arrays.copyOf(sent, n * 2);
                received = java.util.Arrays.copyOf(received, n * 2);
            }
            sent[n] = s;
            received[n] = r;
            n++;
        }
    }

    private record Sent(int clock, long tick) {
    }

    /** The number of clock domains. */
    private final int processes;
    private final Map<Long, Direction> byPair = new HashMap<>();
    /** The master's line through its FreeZer midpoints; null when it has no bounded event. */
    final LinearClock masterOnReference;

    private MessagePairs(int processes, LinearClock masterOnReference) {
        this.processes = processes;
        this.masterOnReference = masterOnReference;
    }

    /** Messages from {@code from} to {@code to} (empty when none). */
    Direction direction(int from, int to) {
        return byPair.getOrDefault((long) from * processes + to, new Direction());
    }

    /** Domain pairs that exchanged messages, either way, as adjacency lists in ascending order. */
    List<List<Integer>> neighbours() {
        List<List<Integer>> adjacent = new ArrayList<>();
        for (int p = 0; p < processes; p++) {
            List<Integer> of = new ArrayList<>();
            for (int q = 0; q < processes; q++) {
                if (q != p && (direction(p, q).n > 0 || direction(q, p).n > 0)) {
                    of.add(q);
                }
            }
            adjacent.add(of);
        }
        return adjacent;
    }

    /**
     * The profile's messages between domains; {@code clockOf[process]} is the process's domain index
     * (of {@code clocks}); {@code master} the process whose FreeZer midpoints place its domain when
     * nothing else does.
     */
    static MessagePairs read(Profile profile, int[] clockOf, int clocks, int master) throws ProfileException {
        ProfileInfo info = profile.info();
        int processes = clocks;
        int[] processOf = new int[info.streams().size()];
        info.streams().forEach(s -> processOf[s.index()] = s.process());
        MessageMatcher<Sent> matcher = new MessageMatcher<>(info);
        Map<Long, Direction> byPair = new HashMap<>();
        long x0 = Long.MIN_VALUE;
        long y0 = 0;
        long n = 0;
        double sx = 0;
        double sy = 0;
        double sxx = 0;
        double sxy = 0;
        try (ProfileEventsReader events = profile.events()) {
            ProfileEvent e = new ProfileEvent();
            while (events.next(e)) {
                int p = processOf[e.stream];
                switch (e.kind) {
                    case SEND -> matcher.send(e, new Sent(clockOf[p], e.tick));
                    case RECEIVE -> {
                        Sent s = matcher.receive(e);
                        if (s != null && s.clock != clockOf[p]) {
                            byPair.computeIfAbsent((long) s.clock * processes + clockOf[p], k -> new Direction())
                                    .add(s.tick, e.tick);
                        }
                    }
                    default -> {
                    }
                }
                if (p == master && e.hi != Long.MAX_VALUE && e.lo != Long.MIN_VALUE) {
                    if (x0 == Long.MIN_VALUE) {
                        x0 = e.tick;
                        y0 = e.lo;
                    }
                    double dx = e.tick - x0;
                    double dy = (e.lo - y0) + (e.hi - e.lo) / 2.0;
                    n++;
                    sx += dx;
                    sy += dy;
                    sxx += dx * dx;
                    sxy += dx * dy;
                }
            }
        } catch (IOException | FormatException e) {
            throw new ProfileException(profile.dir() + ": " + e.getMessage());
        }
        MessagePairs pairs = new MessagePairs(processes, n == 0 ? null
                : LinearClock.leastSquares(x0, y0, n, sx, sy, sxx, sxy));
        pairs.byPair.putAll(byPair);
        return pairs;
    }
}
