package dev.dprof.consolidator.analysis.straggler;

import dev.dprof.consolidator.analysis.frames.FrameSweep;
import dev.dprof.consolidator.analysis.frames.StateTimeline;
import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.profile.ProfileException;
import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.format.FormatException;
import dev.dprof.format.profile.ProfileEvent;
import dev.dprof.format.profile.ProfileEventsReader;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The dCSP straggler score (DProf §6, step 1): for a thread t, the share of the analysed span in
 * which t is inside the body region while every other participating thread is inside the barrier
 * region; for a process p, the share in which some thread of p is in the body while every
 * participating thread of every other process is in the barrier. Participants are the threads
 * that enter the body region.
 *
 * <p>Bounds, each a proof: the time in the state is bounded by the {@link FrameSweep} (certain
 * vs. possible stretches). The span runs from the first body enter to the last barrier exit, whose
 * true times lie in known intervals: the lower bound divides the certain time inside the shortest
 * possible span by the longest; the upper bound the possible time inside the longest by the
 * shortest. With a window chosen at consolidation, the span is that window, exactly. With
 * simulated clocks the truth is computed the same way from the real ticks.
 */
public final class StragglerScore {
    static final int OTHER = 0;
    static final int BODY = 1;
    static final int BARRIER = 2;
    private static final int BODY_ONLY = 1 << BODY;
    private static final int BARRIER_ONLY = 1 << BARRIER;

    /** A thread's score. */
    public record ThreadScore(int process, int stream, String thread, double lo, double hi, Double truth) {
    }

    /** A process's score. */
    public record ProcessScore(int process, String label, double lo, double hi, Double truth) {
    }

    /** All scores, and what they rest on. */
    public record Result(String body, String barrier, List<ThreadScore> threads, List<ProcessScore> processes,
                         double spanSecondsMin, double spanSecondsMax, String quality, String assumption) {
    }

    private StragglerScore() {
    }

    public static Result compute(Profile profile, String body, String barrier) throws ProfileException {
        ProfileInfo info = profile.info();
        int bodyRegion = regionIndex(info, body);
        int barrierRegion = regionIndex(info, barrier);
        int streams = info.streams().size();
        Transitions[] bounded = new Transitions[streams];
        Transitions[] truth = new Transitions[streams];
        for (int s = 0; s < streams; s++) {
            bounded[s] = new Transitions();
            truth[s] = new Transitions();
        }
        try (ProfileEventsReader events = profile.events()) {
            ProfileEvent e = new ProfileEvent();
            while (events.next(e)) {
                int state = stateAfter(e, bodyRegion, barrierRegion);
                if (state < 0) {
                    continue;
                }
                bounded[e.stream].add(e.lo, e.hi, state);
                if (info.truth()) {
                    truth[e.stream].add(e.truth, e.truth, state);
                }
            }
        } catch (IOException | FormatException e) {
            throw new ProfileException(profile.dir() + ": " + e.getMessage());
        }
        List<Integer> participants = new ArrayList<>();
        for (int s = 0; s < streams; s++) {
            if (bounded[s].bodyEnters > 0) {
                participants.add(s);
            }
        }
        if (participants.isEmpty()) {
            throw new ProfileException("no thread enters the body region '" + body + "'");
        }
        Span span = span(bounded, participants, info.window());
        Scores scores = sweep(bounded, participants, info, span.outerFrom, span.outerTo, span.innerFrom, span.innerTo);
        Optional<Scores> truthScores = Optional.empty();
        if (info.truth()) {
            Span t = span(truth, participants, info.window());
            truthScores = Optional.of(sweep(truth, participants, info, t.outerFrom, t.outerTo, t.outerFrom, t.outerTo));
        }
        double outer = span.outerTo - span.outerFrom;
        double inner = Math.max(1, span.innerTo - span.innerFrom);
        List<ThreadScore> threadScores = new ArrayList<>();
        for (int k = 0; k < participants.size(); k++) {
            int s = participants.get(k);
            ProfileInfo.Stream stream = info.streams().get(s);
            Double t = truthScores.map(ts -> ts.threadPossible[kIndex(participants, s)] / (double) ts.span).orElse(null);
            threadScores.add(new ThreadScore(stream.process(), s, stream.name(),
                    clamp(scores.threadCertain[k] / outer), clamp(scores.threadPossible[k] / inner), t));
        }
        List<ProcessScore> processScores = new ArrayList<>();
        for (ProfileInfo.Process p : info.processes()) {
            if (scores.processParticipants[p.index()] == 0) {
                continue;
            }
            Double t = truthScores.map(ts -> ts.processPossible[p.index()] / (double) ts.span).orElse(null);
            processScores.add(new ProcessScore(p.index(), p.host() + "-" + p.pid(),
                    clamp(scores.processCertain[p.index()] / outer), clamp(scores.processPossible[p.index()] / inner), t));
        }
        String quality = participants.stream().map(s -> info.processes().get(info.streams().get(s).process()).quality())
                .reduce((a, b) -> worse(a, b)).orElse("REFERENCE");
        return new Result(body, barrier, threadScores, processScores, info.ticksToNanos(inner) / 1e9,
                info.ticksToNanos(outer) / 1e9, quality, info.assumption());
    }

    private static int kIndex(List<Integer> participants, int stream) {
        return participants.indexOf(stream);
    }

    private static String worse(String a, String b) {
        List<String> order = List.of("REFERENCE", "BOUNDED", "SINGLE_ZERO", "PARTIAL", "CONTRADICTED", "ABSENT");
        return order.indexOf(a) >= order.indexOf(b) ? a : b;
    }

    private static double clamp(double v) {
        return Math.max(0, Math.min(1, v));
    }

    private static int regionIndex(ProfileInfo info, String name) throws ProfileException {
        return info.regions().stream().filter(r -> r.name().equals(name)).findFirst()
                .orElseThrow(() -> new ProfileException("no region named '" + name + "' (regions: "
                        + info.regions().stream().map(ProfileInfo.Region::name).toList() + ")")).index();
    }

    /** The state an event moves its thread into, or -1 when it does not concern the query. */
    static int stateAfter(ProfileEvent e, int body, int barrier) {
        if (e.region != body && e.region != barrier) {
            return -1;
        }
        return switch (e.kind) {
            case ENTER, ENTER_INSTANCE, BARRIER_ENTER -> e.region == body ? BODY : BARRIER;
            case EXIT, EXIT_THROW, BARRIER_EXIT -> OTHER;
            default -> -1;
        };
    }

    /** One thread's transitions, growing arrays. */
    static final class Transitions {
        long[] lo = new long[64];
        long[] hi = new long[64];
        int[] state = new int[64];
        int size;
        int bodyEnters;
        long firstBodyEnterLo = Long.MAX_VALUE;
        long firstBodyEnterHi = Long.MAX_VALUE;
        long lastExitLo = Long.MIN_VALUE;
        long lastExitHi = Long.MIN_VALUE;
        int previous = OTHER;

        void add(long l, long h, int s) {
            if (size == lo.length) {
                lo = Arrays.copyOf(lo, size * 2);
                hi = Arrays.copyOf(hi, size * 2);
                state = Arrays.copyOf(state, size * 2);
            }
            lo[size] = l;
            hi[size] = h;
            state[size++] = s;
            if (s == BODY) {
                bodyEnters++;
                firstBodyEnterLo = Math.min(firstBodyEnterLo, l);
                firstBodyEnterHi = Math.min(firstBodyEnterHi, h);
            }
            if (s == OTHER && previous == BARRIER) {
                lastExitLo = Math.max(lastExitLo, l);
                lastExitHi = Math.max(lastExitHi, h);
            }
            previous = s;
        }
    }

    private record Span(long outerFrom, long outerTo, long innerFrom, long innerTo) {
    }

    private static Span span(Transitions[] t, List<Integer> participants, ProfileInfo.Window window) {
        if (window != null) {
            long from = window.fromTick() == Long.MIN_VALUE
                    ? participants.stream().mapToLong(s -> t[s].firstBodyEnterLo).min().orElseThrow() : window.fromTick();
            long to = window.toTick() == Long.MAX_VALUE
                    ? participants.stream().mapToLong(s -> t[s].lastExitHi).max().orElseThrow() : window.toTick();
            return new Span(from, to, from, to);
        }
        long outerFrom = participants.stream().mapToLong(s -> t[s].firstBodyEnterLo).min().orElseThrow();
        long innerFrom = participants.stream().mapToLong(s -> t[s].firstBodyEnterHi).min().orElseThrow();
        long outerTo = participants.stream().mapToLong(s -> t[s].lastExitHi).max().orElseThrow();
        long innerTo = participants.stream().mapToLong(s -> t[s].lastExitLo).max().orElseThrow();
        if (outerTo == Long.MIN_VALUE) {
            outerTo = participants.stream().mapToLong(s -> t[s].hi[t[s].size - 1]).max().orElseThrow();
            innerTo = participants.stream().mapToLong(s -> t[s].lo[t[s].size - 1]).max().orElseThrow();
        }
        return new Span(outerFrom, outerTo, innerFrom, Math.max(innerFrom, innerTo));
    }

    /** Times (in ticks) of certain and possible straggling per participant and per process. */
    private static final class Scores {
        long span;
        long[] threadCertain;
        long[] threadPossible;
        long[] processCertain;
        long[] processPossible;
        int[] processParticipants;
    }

    private static Scores sweep(Transitions[] t, List<Integer> participants, ProfileInfo info,
                                long outerFrom, long outerTo, long innerFrom, long innerTo) {
        int n = participants.size();
        int processes = info.processes().size();
        int[] processOf = new int[n];
        Scores scores = new Scores();
        scores.span = Math.max(1, outerTo - outerFrom);
        scores.threadCertain = new long[n];
        scores.threadPossible = new long[n];
        scores.processCertain = new long[processes];
        scores.processPossible = new long[processes];
        scores.processParticipants = new int[processes];
        List<StateTimeline> timelines = new ArrayList<>();
        for (int k = 0; k < n; k++) {
            Transitions tr = t[participants.get(k)];
            timelines.add(StateTimeline.of(tr.lo, tr.hi, tr.state, tr.size, OTHER));
            processOf[k] = info.streams().get(participants.get(k)).process();
            scores.processParticipants[processOf[k]]++;
        }
        int[] certainBarrierIn = new int[processes];
        int[] possibleBarrierIn = new int[processes];
        boolean[] certainBodyIn = new boolean[processes];
        boolean[] possibleBodyIn = new boolean[processes];
        FrameSweep.sweep(timelines, outerFrom, outerTo, (from, to, masks) -> {
            long length = to - from;
            long innerLength = Math.max(0, Math.min(to, innerTo) - Math.max(from, innerFrom));
            int certainBarrier = 0;
            int possibleBarrier = 0;
            Arrays.fill(certainBarrierIn, 0);
            Arrays.fill(possibleBarrierIn, 0);
            Arrays.fill(certainBodyIn, false);
            Arrays.fill(possibleBodyIn, false);
            for (int k = 0; k < n; k++) {
                int m = masks[k];
                if (m == BARRIER_ONLY) {
                    certainBarrier++;
                    certainBarrierIn[processOf[k]]++;
                }
                if ((m & BARRIER_ONLY) != 0) {
                    possibleBarrier++;
                    possibleBarrierIn[processOf[k]]++;
                }
                certainBodyIn[processOf[k]] |= m == BODY_ONLY;
                possibleBodyIn[processOf[k]] |= (m & BODY_ONLY) != 0;
            }
            for (int k = 0; k < n; k++) {
                int m = masks[k];
                if (m == BODY_ONLY && certainBarrier == n - 1) {
                    scores.threadCertain[k] += innerLength;
                }
                int othersPossible = possibleBarrier - ((m & BARRIER_ONLY) != 0 ? 1 : 0);
                if ((m & BODY_ONLY) != 0 && othersPossible == n - 1) {
                    scores.threadPossible[k] += length;
                }
            }
            for (int p = 0; p < processes; p++) {
                int own = scores.processParticipants[p];
                if (own == 0) {
                    continue;
                }
                if (certainBodyIn[p] && certainBarrier - certainBarrierIn[p] == n - own) {
                    scores.processCertain[p] += innerLength;
                }
                if (possibleBodyIn[p] && possibleBarrier - possibleBarrierIn[p] == n - own) {
                    scores.processPossible[p] += length;
                }
            }
        });
        return scores;
    }
}
