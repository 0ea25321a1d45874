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
 * The raw ticks of every matched message between two processes, by process pair, and the master
 * process's events placed on the reference (the frame the point methods write in).
 */
final class MessagePairs {
    /** One direction of a pair's messages: the sender's and the receiver's ticks. */
    static final class Direction {
        long[] sent = new long[64];
        long[] received = new long[64];
        int n;

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

    private record Sent(int process, long tick) {
    }

    private final int processes;
    private final Map<Long, Direction> byPair = new HashMap<>();
    final LinearClock masterOnReference;

    private MessagePairs(int processes, LinearClock masterOnReference) {
        this.processes = processes;
        this.masterOnReference = masterOnReference;
    }

    /** Messages from {@code from} to {@code to} (empty when none). */
    Direction direction(int from, int to) {
        return byPair.getOrDefault((long) from * processes + to, new Direction());
    }

    /** Process pairs that exchanged messages, either way, as adjacency lists in ascending order. */
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

    /** Pairs given directly: {@code directions.get(i)} holds the messages {@code pairs.get(i)[0] → [1]}. */
    static MessagePairs of(int processes, LinearClock masterOnReference, List<long[]> pairs, List<Direction> directions) {
        MessagePairs p = new MessagePairs(processes, masterOnReference);
        for (int i = 0; i < pairs.size(); i++) {
            p.byPair.put(pairs.get(i)[0] * processes + pairs.get(i)[1], directions.get(i));
        }
        return p;
    }

    static MessagePairs read(Profile profile, int master) throws ProfileException {
        ProfileInfo info = profile.info();
        int processes = info.processes().size();
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
                    case SEND -> matcher.send(e, new Sent(p, e.tick));
                    case RECEIVE -> {
                        Sent s = matcher.receive(e);
                        if (s != null && s.process != p) {
                            byPair.computeIfAbsent((long) s.process * processes + p, k -> new Direction()).add(s.tick, e.tick);
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
        if (n == 0) {
            throw new ProfileException("the master process " + info.processes().get(master).host() + "-"
                    + info.processes().get(master).pid() + " has no bounded event to place its clock on the reference");
        }
        MessagePairs pairs = new MessagePairs(processes, LinearClock.leastSquares(x0, y0, n, sx, sy, sxx, sxy));
        pairs.byPair.putAll(byPair);
        return pairs;
    }
}
