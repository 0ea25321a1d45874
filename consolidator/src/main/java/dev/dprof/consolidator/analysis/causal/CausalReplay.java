package dev.dprof.consolidator.analysis.causal;

import dev.dprof.consolidator.analysis.messages.CollectiveMatcher;
import dev.dprof.consolidator.analysis.messages.HandoffEdges;
import dev.dprof.consolidator.analysis.messages.UnexplainedWaits;
import dev.dprof.consolidator.analysis.messages.MessageMatcher;
import dev.dprof.consolidator.analysis.stats.Rates;
import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.profile.ProfileException;
import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.format.EventKind;
import dev.dprof.format.FormatException;
import dev.dprof.format.profile.ProfileEvent;
import dev.dprof.format.profile.ProfileEventsReader;
import java.io.IOException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One pass over a consolidated profile that replays it as the time-weighted DAG of DProf §5.2 and
 * propagates, for every {@link Cut} at once, how much earlier each event would happen (dCOZ,
 * Alg. 6), and for every region how much of the critical path ending at each event it holds
 * (Hollingsworth §2.1).
 *
 * <h2>The DAG</h2>
 * Vertices are events. Within a thread, consecutive events are joined by a program-order edge of
 * weight {@code t(v) − t(p)} (inelastic: a cut shortens it only by the share of the cut region).
 * A matched {@code RECEIVE} and a {@code BARRIER_EXIT} with enters before it are joins: the
 * event happens {@code c} after the last of its predecessors — its own thread's previous event
 * {@code p}, and the send (the collective's enters that precede the exit by its flavour, Becker
 * §4.1: a broadcast's root enter, every enter for a reduce's root exit, …) plus the latency floor
 * λ ({@link CausalFacts}) —
 * {@code t(v) = max(t(p), t(q_j) + λ) + c}, where {@code c ≥ 0} is fixed and the edges from the
 * predecessors are elastic: how long the event waited is whatever the new times make it.
 *
 * <p>A send that blocked until its reader started reading (flow control; {@link CausalFacts}
 * finds them) makes the sender's next event a join too, with the reader's event: the dependency
 * in the other direction, which no single event records.
 *
 * <p>A handoff between threads of one process ({@link HandoffEdges}: a queue's element, a task, a
 * future's value, a thread's start or end, a back-pressure wait) is a join exactly as a receive:
 * the take (a started thread's first event, a back-pressure take) happens {@code c} after the last
 * of its thread's previous event and its source plus the site's floor λ. A started thread's first
 * event has no previous event: it joins on its {@code Thread.start} alone, so the thread's creation
 * moves with its parent.
 *
 * <h2>The reduction</h2>
 * With {@code R(v) = t(v) − t'(v)}, how much earlier v happens after the cut:
 * <ul>
 * <li>after a program-order edge, {@code R(v) = R(p) + f·w} when the edge lies inside the cut
 * region (any open frame of it on the thread: recursion counts once), else {@code R(p)};</li>
 * <li>at a join, {@code R(v) = max_j x_j − max_j (x_j − R_j)} over its predecessors, with
 * {@code x_j} their times (plus λ) — the {@code c} cancels, so only the order of the predecessors'
 * times matters, never a difference of two clocks;</li>
 * <li>the program speeds up by {@code (G_end − G_start)/T}, with {@code G_end} the same max-form
 * over the threads' last events of the span, {@code G_start} the min-form over their first, and
 * {@code T} the span.</li>
 * </ul>
 *
 * <h2>Why the bounds are sound</h2>
 * Every quantity above is nondecreasing in each {@code R_j} and in each edge weight {@code w}, so
 * evaluating it at the lower (upper) ends of their bounds gives a lower (upper) bound. The only
 * other inputs are the predecessors' times, which are known to lie in their intervals; for them
 * {@link JoinGain} takes the exact minimum and maximum over the whole box of intervals. By
 * induction along the causal order, every event's true reduction lies in {@code [rLo, rHi]}.
 * Edge weights are {@code [max(0, Δk − 1)·slopeLow, (Δk + 1)·slopeHigh]} (docs/BOUNDS.md,
 * "Durations"); cut shares are exact integer arithmetic on the fraction in units of
 * 2<sup>−{@value #FRACTION_BITS}</sup>.
 *
 * <h2>The critical path</h2>
 * For each event, per region, bounds on the time that region holds on the longest path that ends
 * there: a program-order edge adds its weight to every region open on the thread (once each), or
 * to "outside regions"; at a join the path goes through the predecessor that came last — any
 * predecessor whose interval reaches the latest lower end may be that one, so the bounds take the
 * minimum and maximum over those; a cross-thread edge adds {@code t(v) − t(q)} to "communication",
 * or, through a handoff, to the handoff's site (so the path names the queue it waited on). The
 * true critical path goes through one of the candidates at every join, so it lies within. The same
 * min and max over the candidates bound how many handoff edges the path crosses, and how much of
 * it each thread spends outside any region (which says where the recorded picture has gaps).
 * Over a span that starts at a region's first enter {@code S} ({@link SpanCut}), the path is the
 * longest one ending at the span's end, cut at {@code S}: each edge counts only its part after
 * {@code S}, bounded at the corners of its interval box, and the shares are of {@code E − S}.
 *
 * <h2>Progress points and transactions</h2>
 * Coz's throughput: per progress point, the gain between its first and its last visit (the same
 * min- and max-forms over the threads' first and last visits). Coz's latency: for a region taken
 * as a transaction, the sum over its outermost instances of {@code R(exit) − R(enter)}, bounded by
 * {@code [rLo(exit) − rHi(enter), rHi(exit) − rLo(enter)]}.
 *
 * <p>What the model holds fixed: a thread's first event unless its {@code Thread.start} was
 * recorded, the time a join takes once its last predecessor is there, and the order of events that
 * no recorded edge relates (work done while waiting on an unrecorded lock is program order). It knows nothing of
 * CPUs: a faster region that frees a core for others gains nothing here.
 *
 * <p>Memory: one vertex per thread, per message and handoff in flight, per barrier enter of an
 * unfinished instance and per progress point and thread — never the length of the trace.
 */
final class CausalReplay {
    /** Times and durations from the bounds, or from the truth of a simulated run. */
    enum View { BOUNDS, TRUTH }

    /** Cut fractions are applied as {@code n / 2^FRACTION_BITS}, exactly. */
    static final int FRACTION_BITS = 20;
    private static final long NO_INSTANCE = Cut.ANY;

    /** A vertex's time, reductions per cut and critical-path shares per bucket. */
    static final class Vertex {
        final int process;
        long lo;
        long hi;
        final long[] rLo;
        final long[] rHi;
        final long[] cpLo;
        final long[] cpHi;
        long originLo;
        long originHi;
        /** Handoff edges on the critical path ending here, bounds. */
        long hopsLo;
        long hopsHi;

        Vertex(int process, int cuts, int buckets) {
            this.process = process;
            rLo = new long[cuts];
            rHi = new long[cuts];
            cpLo = new long[buckets];
            cpHi = new long[buckets];
        }

        Vertex copy() {
            Vertex v = new Vertex(process, rLo.length, cpLo.length);
            v.set(this);
            return v;
        }

        void set(Vertex o) {
            lo = o.lo;
            hi = o.hi;
            System.arraycopy(o.rLo, 0, rLo, 0, rLo.length);
            System.arraycopy(o.rHi, 0, rHi, 0, rHi.length);
            System.arraycopy(o.cpLo, 0, cpLo, 0, cpLo.length);
            System.arraycopy(o.cpHi, 0, cpHi, 0, cpHi.length);
            originLo = o.originLo;
            originHi = o.originHi;
            hopsLo = o.hopsLo;
            hopsHi = o.hopsHi;
        }
    }

    private static final class ThreadState {
        final int process;
        final int stream;
        Vertex head;
        long tick;
        long truth;
        long firstLo;
        long firstHi;
        int[] region = new int[8];
        long[] instance = new long[8];
        int depth;
        Vertex start;
        Vertex end;
        /** The latency region's outermost open instance: how many frames, and its enter. */
        int latencyOpen;
        Vertex latencyEnter;
        long latencyEnterTick;
        long latencyEnterTruth;
        /** Events of this thread replayed so far. */
        long events;
        /** The previous event's region and kind, and the widest program-order edge outside regions. */
        int lastRegion = -1;
        EventKind lastKind;
        Stretch widest;

        ThreadState(int process, int stream) {
            this.process = process;
            this.stream = stream;
        }

        void push(int r, long inst) {
            if (depth == region.length) {
                region = Arrays.copyOf(region, depth * 2);
                instance = Arrays.copyOf(instance, depth * 2);
            }
            region[depth] = r;
            instance[depth] = inst;
            depth++;
        }

        void pop(int r) {
            for (int i = depth - 1; i >= 0; i--) {
                if (region[i] == r) {
                    depth = i;
                    return;
                }
            }
        }
    }

    /** Per progress point and thread: the first and the latest visit, and the visits counted. */
    private static final class ProgressPoint {
        final Vertex[] first;
        final Vertex[] last;
        long visits;

        ProgressPoint(int threads) {
            first = new Vertex[threads];
            last = new Vertex[threads];
        }
    }

    /** A gain in reference ticks, and the span it is a share of. */
    record Gain(long lo, long hi) {
    }

    /**
     * A thread's widest program-order edge outside any region: at most {@code ticksHi} long, from
     * an event of {@code beforeKind} in {@code beforeRegion} to one of {@code afterKind} in
     * {@code afterRegion} (regions -1 where none) — where the thread did something unrecorded.
     */
    record Stretch(long ticksHi, int beforeRegion, EventKind beforeKind, int afterRegion, EventKind afterKind) {
    }

    /**
     * Coz's latency of a transaction, here the instances of one region (begin: enter, end: exit):
     * their summed duration, and per cut how much shorter they got in sum ({@code R_exit − R_enter}).
     */
    record Latency(int region, long instances, long totalLo, long totalHi, Gain[] gains) {
    }

    /** What a progress point says: visits, the period of all visits, and each cut's gain in it. */
    record Progress(int region, long visits, long periodLo, long periodHi, Gain[] gains) {
    }

    /**
     * The replay's findings, in reference ticks.
     *
     * @param gains      per cut: how much shorter the span gets
     * @param cpLo       per bucket (regions, then {@link #communication}, then {@link #outside}): the
     *                   time on the critical path, lower bounds
     * @param pathLo     the critical path's length: from the span's start (the profile's first event,
     *                   or the earliest first enter of {@code from}) to its end
     * @param threadOutside the first of the per-stream buckets (stream {@code s}: {@code threadOutside + s}),
     *                   the time the path spends outside any region on each thread
     * @param hopsLo     handoff edges on the critical path, bounds
     * @param widest     per stream, its widest program-order edge outside regions (null: none)
     * @param noBound    null when the replay was made; else why it has no bound at all (the profile
     *                   holds events of a process without a rate bound: a replay needs every duration),
     *                   and every other figure here is empty
     * @param notReplayed the processes without a rate bound whose events are not in the profile (the
     *                   consolidator left them out): the replay runs without them, one line each
     */
    record Result(long spanLo, long spanHi, Gain[] gains, long[] cpLo, long[] cpHi, long pathLo, long pathHi,
                  int communication, int outside, List<Progress> progress, Latency latency, int threadOutside,
                  long hopsLo, long hopsHi, Stretch[] widest, String noBound, List<String> notReplayed) {
        /** A replay that cannot be bounded, and why. */
        static Result noBound(String why) {
            return new Result(0, 0, new Gain[0], new long[0], new long[0], 0, 0, -1, -1, List.of(), null, -1, 0, 0,
                    new Stretch[0], why, List.of());
        }
    }

    /** A handoff's source, kept until the last event that waits for it. */
    private static final class Retained {
        final Vertex vertex;
        int uses;

        Retained(Vertex vertex, int uses) {
            this.vertex = vertex;
            this.uses = uses;
        }
    }

    /** {@link #bucketOf} of the thread's own previous event: its edge counts in the regions open on the thread. */
    private static final int OWN = -1;

    private final View view;
    private final List<Cut> cuts;
    private final long[] cutNumerator;
    private final int from;
    private final int to;
    private final int latency;
    private long latencyInstances;
    private long latencyLo;
    private long latencyHi;
    private final long[] latencyGainLo;
    private final long[] latencyGainHi;
    private final CausalFacts facts;
    private final int buckets;
    private final int communication;
    private final int outside;
    private final int threadOutside;
    private final double[] slopeLo;
    private final double[] slopeHi;
    private final ThreadState[] threads;
    /** Per process and region: the instance id the process fixed for it at start, or {@link #NO_INSTANCE}. */
    private final long[][] fixedInstance;
    private final MessageMatcher<Vertex> messages;
    private final CollectiveMatcher<Vertex> collectives = new CollectiveMatcher<>();
    private final Map<Integer, ProgressPoint> progress = new TreeMap<>();
    private final boolean[] onStack;
    /** The buckets {@link #onStack} marks, so that clearing and adding touch only those. */
    private int[] marked = new int[8];
    private int markedCount;
    private long[] xLo = new long[8];
    private long[] xHi = new long[8];
    private long[] zeros = new long[8];
    private long[] reductions = new long[8];
    private Vertex[] parts = new Vertex[8];
    /** Per predecessor: the bucket its edge counts in ({@link #OWN}, a handoff's site, communication), and whether it is a handoff. */
    private int[] bucketOf = new int[8];
    private boolean[] hop = new boolean[8];
    private final HandoffEdges handoffs;
    private final Map<Long, Retained> retained = new HashMap<>();
    private int nextTarget;
    private int nextSource;
    private long position;
    private final long[] range = new long[2];
    private final Vertex scratch;
    /** The readers that blocking sends waited for ({@link CausalFacts#waitsFor}), kept until the sender's next event. */
    private final Map<Long, Vertex> readers = new HashMap<>();
    private final java.util.Set<Long> readerKeys;
    /** Where the span starts, when it is not the profile's first event (null): the path leaves out what lies before. */
    private final SpanCut span;

    private CausalReplay(ProfileInfo info, Rates rates, List<Cut> cuts, int from, int to, int latency, View view,
                         CausalFacts facts, SpanCut span) {
        this.view = view;
        this.span = span;
        this.cuts = cuts;
        this.cutNumerator = new long[cuts.size()];
        for (int k = 0; k < cuts.size(); k++) {
            cutNumerator[k] = Math.round(cuts.get(k).fraction() * (1L << FRACTION_BITS));
        }
        this.from = from;
        this.to = to;
        this.latency = latency;
        this.latencyGainLo = new long[cuts.size()];
        this.latencyGainHi = new long[cuts.size()];
        this.facts = facts;
        int regions = info.regions().size();
        this.communication = regions;
        this.outside = regions + 1;
        this.threadOutside = regions + 2;
        this.buckets = regions + 2 + info.streams().size();
        this.handoffs = facts.handoffs();
        this.onStack = new boolean[buckets];
        int processes = info.processes().size();
        this.slopeLo = new double[processes];
        this.slopeHi = new double[processes];
        for (int p = 0; p < processes; p++) {
            slopeLo[p] = Rates.down(rates.low[p]);
            slopeHi[p] = Rates.up(rates.high[p]);
        }
        this.threads = new ThreadState[info.streams().size()];
        for (ProfileInfo.Stream s : info.streams()) {
            threads[s.index()] = new ThreadState(s.process(), s.index());
        }
        this.fixedInstance = info.fixedInstances(NO_INSTANCE);
        this.messages = new MessageMatcher<>(info);
        this.readerKeys = new java.util.HashSet<>(facts.waitsFor().values());
        this.scratch = new Vertex(-1, cuts.size(), buckets);
    }

    /**
     * Replays the profile.
     *
     * @param from the region whose first enter on each thread starts the span, or -1: each thread's first event
     * @param to   the region whose last exit on each thread ends the span, or -1: each thread's last event
     */
    static Result run(Profile profile, List<Cut> cuts, int from, int to, View view, CausalFacts facts)
            throws ProfileException {
        return run(profile, cuts, from, to, -1, view, facts);
    }

    /** The same, with the latency of region {@code latency}'s instances (-1: none). */
    static Result run(Profile profile, List<Cut> cuts, int from, int to, int latency, View view, CausalFacts facts)
            throws ProfileException {
        ProfileInfo info = profile.info();
        Rates rates = new Rates(info);
        if (view == View.TRUTH && !info.truth()) {
            throw new ProfileException(profile.dir() + ": the events carry no truth (the run's clocks were not simulated)");
        }
        SpanCut span = SpanCut.scan(profile, from, to, info.streams().size(), view == View.TRUTH);
        CausalReplay replay = new CausalReplay(info, rates, cuts, from, to, latency, view, facts, span);
        try (ProfileEventsReader events = profile.events()) {
            ProfileEvent e = new ProfileEvent();
            while (events.next(e)) {
                int process = replay.processOf(e);
                if (view == View.BOUNDS && rates.high[process] == null) {
                    // The duration of an edge on this thread has no upper end: no reduction, path or span is bounded.
                    ProfileInfo.Process p = info.processes().get(process);
                    return Result.noBound("process " + p.host() + "-" + p.pid() + " has events in the profile and its"
                            + " clock has no rate bound (calibration " + p.quality() + "); the replay needs every"
                            + " duration");
                }
                replay.accept(e);
            }
        } catch (IOException | FormatException e) {
            throw new ProfileException(profile.dir() + ": " + e.getMessage());
        }
        List<String> notReplayed = new ArrayList<>();
        for (ProfileInfo.Process p : info.processes()) {
            if (rates.high[p.index()] == null) {
                notReplayed.add(p.host() + "-" + p.pid() + ": no rate bound (calibration " + p.quality() + "), none of"
                        + " its events in the profile; the replay runs without it, as without a process not profiled");
            }
        }
        return replay.finish(info, notReplayed);
    }

    /** The process of an event's thread. */
    private int processOf(ProfileEvent e) throws ProfileException {
        if (e.stream < 0 || e.stream >= threads.length || threads[e.stream] == null) {
            throw new ProfileException("an event of stream " + e.stream + ", which profile.json does not list");
        }
        return threads[e.stream].process;
    }

    private void accept(ProfileEvent e) throws ProfileException {
        if (e.stream < 0 || e.stream >= threads.length || threads[e.stream] == null) {
            throw new ProfileException("an event of stream " + e.stream + ", which profile.json does not list");
        }
        if (UnexplainedWaits.isWait(e)) {
            // Stamped after its thread woke, so after what woke it: a point of program order here
            // would pin the next event, a take say, where no faster put could move it (UnexplainedWaits).
            position++;
            return;
        }
        ThreadState t = threads[e.stream];
        long lo = view == View.TRUTH ? e.truth : e.lo;
        long hi = view == View.TRUTH ? e.truth : e.hi;
        if (t.head == null) {
            t.head = new Vertex(t.process, cuts.size(), buckets);
            t.firstLo = lo;
            t.firstHi = hi;
            int joined = handoffPredecessors(0);
            if (joined > 0) {
                markStack(t);
                join(t, joined, 0, 0, lo, hi);
            } else {
                t.head.originLo = lo;
                t.head.originHi = hi;
            }
        } else {
            long ticks = Math.max(0, view == View.TRUTH ? e.truth - t.truth : e.tick - t.tick);
            long wLo = view == View.TRUTH ? ticks : floorTimes(Math.max(0, ticks - 1), slopeLo[t.process]);
            long wHi = view == View.TRUTH ? ticks : ceilTimes(ticks + 1, slopeHi[t.process]);
            markStack(t);
            // Only what may lie in the span: a gap before it (start-up) is not the span's.
            long gap = span == null ? wHi : span.mayOverlap(t.head.lo, hi) ? span.afterHi(wHi, hi) : 0;
            if (t.depth == 0 && gap > 0 && (t.widest == null || gap > t.widest.ticksHi())) {
                t.widest = new Stretch(gap, t.lastRegion, t.lastKind, e.region, e.kind);
            }
            int joined = predecessors(e, t);
            if (joined > 1) {
                join(t, joined, wLo, wHi, lo, hi);
            } else {
                programOrder(t, wLo, wHi, lo, hi);
            }
        }
        t.head.lo = lo;
        t.head.hi = hi;
        if (latency >= 0 && e.region == latency) {
            latency(e, t);
        }
        t.tick = e.tick;
        t.truth = e.truth;
        enterOrExit(e, t);
        retain(e, t);
        t.events++;
        t.lastRegion = e.region;
        t.lastKind = e.kind;
        position++;
    }

    /** An enter or exit of the latency region: the outermost instance's duration and reductions. */
    private void latency(ProfileEvent e, ThreadState t) {
        boolean enter = e.kind.opens();
        boolean exit = e.kind.closes();
        if (enter && t.latencyOpen++ == 0) {
            if (t.latencyEnter == null) {
                t.latencyEnter = t.head.copy();
            } else {
                t.latencyEnter.set(t.head);
            }
            t.latencyEnterTick = e.tick;
            t.latencyEnterTruth = e.truth;
        } else if (exit && t.latencyOpen > 0 && --t.latencyOpen == 0) {
            long ticks = Math.max(0, view == View.TRUTH ? e.truth - t.latencyEnterTruth : e.tick - t.latencyEnterTick);
            latencyLo += view == View.TRUTH ? ticks : floorTimes(Math.max(0, ticks - 1), slopeLo[t.process]);
            latencyHi += view == View.TRUTH ? ticks : ceilTimes(ticks + 1, slopeHi[t.process]);
            for (int k = 0; k < cuts.size(); k++) {
                latencyGainLo[k] += t.head.rLo[k] - t.latencyEnter.rHi[k];
                latencyGainHi[k] += t.head.rHi[k] - t.latencyEnter.rLo[k];
            }
            latencyInstances++;
        }
    }

    /** Marks the buckets a program-order edge of this thread counts in: its open regions, or "outside". */
    private void markStack(ThreadState t) {
        for (int i = 0; i < markedCount; i++) {
            onStack[marked[i]] = false;
        }
        markedCount = 0;
        for (int i = 0; i < t.depth; i++) {
            mark(t.region[i]);
        }
        if (t.depth == 0) {
            mark(outside);
            mark(threadOutside + t.stream);
        }
    }

    private void mark(int bucket) {
        if (onStack[bucket]) {
            return;
        }
        if (markedCount == marked.length) {
            marked = Arrays.copyOf(marked, markedCount * 2);
        }
        onStack[bucket] = true;
        marked[markedCount++] = bucket;
    }

    /**
     * Fills {@link #parts} and {@link #xLo}/{@link #xHi} with the event's predecessors (its thread's
     * previous event first) when it is a join; returns how many, 1 for an ordinary event.
     */
    private int predecessors(ProfileEvent e, ThreadState t) {
        int n = 0;
        put(n++, t.head, 0, OWN, false);
        if (!readerKeys.isEmpty()) {
            Long reader = facts.waitsFor().get(CausalFacts.key(e.stream, t.events));
            if (reader != null) {
                Vertex started = readers.remove(reader);
                if (started != null) {
                    put(n++, started, 0, communication, false);
                }
            }
        }
        n = handoffPredecessors(n);
        if (e.kind == EventKind.RECEIVE) {
            Vertex sent = messages.receive(e);
            if (sent != null) {
                put(n++, sent, facts.message(sent.process, t.process), communication, false);
            }
        } else if (e.kind == EventKind.BARRIER_EXIT) {
            // A join on the enters that happen before this exit by the collective's flavour
            // (Becker §4.1): a broadcast's exit on the root's enter only, a reduce's root exit on
            // every enter, a scan's exit on the enters of the ranks up to its own.
            List<Vertex> enters = collectives.exit(e);
            if (!enters.isEmpty()) {
                long floor = facts.barrier(e.region);
                for (Vertex enter : enters) {
                    put(n++, enter, floor, communication, false);
                }
            }
        }
        return n;
    }

    /**
     * Adds, from index {@code n} on, the handoff sources the event at {@link #position} waits for
     * ({@link HandoffEdges}), each with its site's floor; forgets a source once its last take came.
     */
    private int handoffPredecessors(int n) {
        while (nextTarget < handoffs.count() && handoffs.target(nextTarget) < position) {
            nextTarget++;
        }
        for (; nextTarget < handoffs.count() && handoffs.target(nextTarget) == position; nextTarget++) {
            long source = handoffs.source(nextTarget);
            Retained r = retained.get(source);
            if (r == null) {
                continue;
            }
            int site = handoffs.site(nextTarget);
            put(n++, r.vertex, facts.handoff(site), site >= 0 ? site : communication, true);
            if (--r.uses == 0) {
                retained.remove(source);
            }
        }
        return n;
    }

    private void put(int j, Vertex v, long floor, int bucket, boolean handoff) {
        if (j == xLo.length) {
            int size = j * 2;
            xLo = Arrays.copyOf(xLo, size);
            xHi = Arrays.copyOf(xHi, size);
            zeros = new long[size];
            reductions = Arrays.copyOf(reductions, size);
            parts = Arrays.copyOf(parts, size);
            bucketOf = Arrays.copyOf(bucketOf, size);
            hop = Arrays.copyOf(hop, size);
        }
        parts[j] = v;
        xLo[j] = v.lo + floor;
        xHi[j] = v.hi + floor;
        bucketOf[j] = bucket;
        hop[j] = handoff;
    }

    /** A program-order edge of weight {@code [wLo, wHi]} to an event at {@code [lo, hi]}. */
    private void programOrder(ThreadState t, long wLo, long wHi, long lo, long hi) {
        Vertex v = t.head;
        for (int k = 0; k < cuts.size(); k++) {
            Cut cut = cuts.get(k);
            // onStack (marked once for the event) answers for every instance; only a cut of one
            // instance looks at the frames.
            if (onStack[cut.region()] && (cut.instance() == Cut.ANY || covered(t, cut))) {
                v.rLo[k] += share(wLo, cutNumerator[k], false);
                v.rHi[k] += share(wHi, cutNumerator[k], true);
            }
        }
        long eLo = span == null ? wLo : span.afterLo(wLo, lo);
        long eHi = span == null ? wHi : span.afterHi(wHi, hi);
        for (int i = 0; i < markedCount; i++) {
            v.cpLo[marked[i]] += eLo;
            v.cpHi[marked[i]] += eHi;
        }
    }

    private static boolean covered(ThreadState t, Cut cut) {
        for (int i = 0; i < t.depth; i++) {
            if (cut.covers(t.region[i], t.instance[i])) {
                return true;
            }
        }
        return false;
    }

    /** {@code ⌊k·s⌋} exactly: the fused multiply-add has the sign of the exact {@code k·s − f}. */
    static long floorTimes(long k, double s) {
        double f = Math.floor(k * s);
        return (long) (Math.fma(k, s, -f) < 0 ? f - 1 : f);
    }

    /** {@code ⌈k·s⌉} exactly. */
    static long ceilTimes(long k, double s) {
        double c = Math.ceil(k * s);
        return (long) (Math.fma(k, s, -c) > 0 ? c + 1 : c);
    }

    /** {@code w × n / 2^FRACTION_BITS}, rounded down or up, exactly. */
    static long share(long w, long numerator, boolean up) {
        if (numerator == 0 || w == 0) {
            return 0;
        }
        long round = up ? (1L << FRACTION_BITS) - 1 : 0;
        if (Math.multiplyHigh(w, numerator) == 0 && w * numerator >= 0 && w * numerator + round >= 0) {
            return (w * numerator + round) >>> FRACTION_BITS;
        }
        return BigInteger.valueOf(w).multiply(BigInteger.valueOf(numerator)).add(BigInteger.valueOf(round))
                .shiftRight(FRACTION_BITS).longValueExact();
    }

    /**
     * A join of {@code n} predecessors (the thread's previous event, if any, at index 0, whose edge
     * weight is {@code [wLo, wHi]}; {@link #bucketOf} says which), the event itself at {@code [lo, hi]}.
     */
    private void join(ThreadState t, int n, long wLo, long wHi, long lo, long hi) {
        Vertex out = scratch;
        for (int k = 0; k < cuts.size(); k++) {
            for (int j = 0; j < n; j++) {
                reductions[j] = -parts[j].rLo[k];
            }
            JoinGain.range(xLo, xHi, zeros, reductions, n, range);
            out.rLo[k] = range[0];
            for (int j = 0; j < n; j++) {
                reductions[j] = -parts[j].rHi[k];
            }
            JoinGain.range(xLo, xHi, zeros, reductions, n, range);
            out.rHi[k] = range[1];
        }
        long latest = Long.MIN_VALUE;
        for (int j = 0; j < n; j++) {
            latest = Math.max(latest, xLo[j]);
        }
        Arrays.fill(out.cpLo, Long.MAX_VALUE);
        Arrays.fill(out.cpHi, Long.MIN_VALUE);
        out.originLo = Long.MAX_VALUE;
        out.originHi = Long.MIN_VALUE;
        out.hopsLo = Long.MAX_VALUE;
        out.hopsHi = Long.MIN_VALUE;
        for (int j = 0; j < n; j++) {
            if (xHi[j] < latest) {
                continue;
            }
            Vertex p = parts[j];
            boolean own = bucketOf[j] == OWN;
            long crossLo = Math.max(0, lo - p.hi);
            long crossHi = Math.max(crossLo, hi - p.lo);
            long edgeLo = own ? wLo : crossLo;
            long edgeHi = own ? wHi : crossHi;
            if (span != null) {
                edgeLo = span.afterLo(edgeLo, lo);
                edgeHi = span.afterHi(edgeHi, hi);
            }
            for (int b = 0; b < buckets; b++) {
                long eLo = 0;
                long eHi = 0;
                if (own ? onStack[b] : b == bucketOf[j]) {
                    eLo = edgeLo;
                    eHi = edgeHi;
                }
                out.cpLo[b] = Math.min(out.cpLo[b], p.cpLo[b] + eLo);
                out.cpHi[b] = Math.max(out.cpHi[b], p.cpHi[b] + eHi);
            }
            out.originLo = Math.min(out.originLo, p.originLo);
            out.originHi = Math.max(out.originHi, p.originHi);
            out.hopsLo = Math.min(out.hopsLo, p.hopsLo + (hop[j] ? 1 : 0));
            out.hopsHi = Math.max(out.hopsHi, p.hopsHi + (hop[j] ? 1 : 0));
        }
        out.lo = t.head.lo;
        out.hi = t.head.hi;
        t.head.set(out);
    }

    private void enterOrExit(ProfileEvent e, ThreadState t) {
        if (e.region < 0) {
            return;
        }
        switch (e.kind) {
            case ENTER, BARRIER_ENTER -> t.push(e.region, fixedInstance[t.process][e.region]);
            case ENTER_INSTANCE -> t.push(e.region, e.a);
            case EXIT, EXIT_THROW, BARRIER_EXIT -> t.pop(e.region);
            default -> {
            }
        }
    }

    private void retain(ProfileEvent e, ThreadState t) {
        while (nextSource < handoffs.sources() && handoffs.sourcePosition(nextSource) < position) {
            nextSource++;
        }
        if (nextSource < handoffs.sources() && handoffs.sourcePosition(nextSource) == position) {
            retained.put(position, new Retained(t.head.copy(), handoffs.sourceUses(nextSource)));
            nextSource++;
        }
        if (!readerKeys.isEmpty()) {
            long key = CausalFacts.key(e.stream, t.events);
            if (readerKeys.contains(key)) {
                readers.put(key, t.head.copy());
            }
        }
        switch (e.kind) {
            case SEND -> messages.send(e, t.head.copy());
            case BARRIER_ENTER -> collectives.enter(e, t.head.copy());
            case PROGRESS -> {
                if (e.region < 0) {
                    break; // a progress point without a region (its id was not in its process's table): nobody's
                }
                ProgressPoint p = progress.computeIfAbsent(e.region, r -> new ProgressPoint(threads.length));
                p.visits += Math.max(1, e.a);
                if (p.first[e.stream] == null) {
                    p.first[e.stream] = t.head.copy();
                    p.last[e.stream] = t.head.copy();
                } else {
                    p.last[e.stream].set(t.head);
                }
            }
            default -> {
            }
        }
        boolean enter = e.kind.opens();
        boolean exit = e.kind.closes();
        if (t.start == null && (from < 0 || enter && e.region == from)) {
            t.start = t.head.copy();
        }
        if (to >= 0 && exit && e.region == to) {
            if (t.end == null) {
                t.end = t.head.copy();
            } else {
                t.end.set(t.head);
            }
        }
    }

    private Result finish(ProfileInfo info, List<String> notReplayed) throws ProfileException {
        List<Vertex> starts = new ArrayList<>();
        List<Vertex> ends = new ArrayList<>();
        long firstHi = Long.MAX_VALUE;
        long firstLo = Long.MAX_VALUE;
        for (ThreadState t : threads) {
            if (t == null || t.head == null) {
                continue;
            }
            firstLo = Math.min(firstLo, t.firstLo);
            firstHi = Math.min(firstHi, t.firstHi);
            if (t.start != null) {
                starts.add(t.start);
            }
            Vertex end = to < 0 ? t.head : t.end;
            if (end != null) {
                ends.add(end);
            }
        }
        if (starts.isEmpty()) {
            throw new ProfileException(from < 0 ? "the profile has no events"
                    : "no thread enters region '" + info.regions().get(from).name() + "', where the span starts");
        }
        if (ends.isEmpty()) {
            throw new ProfileException("no thread leaves region '" + info.regions().get(to).name() + "', where the span ends");
        }
        long endLo = ends.stream().mapToLong(v -> v.lo).max().orElseThrow();
        long endHi = ends.stream().mapToLong(v -> v.hi).max().orElseThrow();
        long startLo = starts.stream().mapToLong(v -> v.lo).min().orElseThrow();
        long startHi = starts.stream().mapToLong(v -> v.hi).min().orElseThrow();
        Gain[] gains = new Gain[cuts.size()];
        for (int k = 0; k < cuts.size(); k++) {
            gains[k] = gain(starts, ends, k);
        }
        long[] cpLo = new long[buckets];
        long[] cpHi = new long[buckets];
        Arrays.fill(cpLo, Long.MAX_VALUE);
        Arrays.fill(cpHi, Long.MIN_VALUE);
        long originLo = Long.MAX_VALUE;
        long originHi = Long.MIN_VALUE;
        long hopsLo = Long.MAX_VALUE;
        long hopsHi = Long.MIN_VALUE;
        for (Vertex v : ends) {
            if (v.hi < endLo) {
                continue;
            }
            for (int b = 0; b < buckets; b++) {
                cpLo[b] = Math.min(cpLo[b], v.cpLo[b]);
                cpHi[b] = Math.max(cpHi[b], v.cpHi[b]);
            }
            originLo = Math.min(originLo, v.originLo);
            originHi = Math.max(originHi, v.originHi);
            hopsLo = Math.min(hopsLo, v.hopsLo);
            hopsHi = Math.max(hopsHi, v.hopsHi);
        }
        // The path starts at its first thread's first event; the time from the span's start (the
        // profile's first event, or S) to it counts as outside. Edges before S were cut as they came.
        long pathStartLo = span == null ? firstLo : span.startLo();
        long pathStartHi = span == null ? firstHi : span.startHi();
        cpLo[outside] += Math.max(0, originLo - pathStartHi);
        cpHi[outside] += Math.max(0, originHi - pathStartLo);
        List<Progress> points = new ArrayList<>();
        for (Map.Entry<Integer, ProgressPoint> p : progress.entrySet()) {
            points.add(progress(p.getKey(), p.getValue()));
        }
        Latency transactions = null;
        if (latency >= 0) {
            Gain[] latencyGains = new Gain[cuts.size()];
            for (int k = 0; k < cuts.size(); k++) {
                latencyGains[k] = new Gain(latencyGainLo[k], latencyGainHi[k]);
            }
            transactions = new Latency(latency, latencyInstances, latencyLo, latencyHi, latencyGains);
        }
        Stretch[] widest = new Stretch[threads.length];
        for (int s = 0; s < threads.length; s++) {
            widest[s] = threads[s] == null ? null : threads[s].widest;
        }
        return new Result(Math.max(0, endLo - startHi), endHi - startLo, gains, cpLo, cpHi,
                Math.max(0, endLo - pathStartHi), endHi - pathStartLo, communication, outside, points, transactions,
                threadOutside, hopsLo, hopsHi, widest, null, List.copyOf(notReplayed));
    }

    /** The gain at the ends less the gain at the starts, as bounds. */
    private Gain gain(List<Vertex> starts, List<Vertex> ends, int k) {
        long[] end = endGain(ends, k);
        long[] start = startGain(starts, k);
        return new Gain(end[0] - start[1], end[1] - start[0]);
    }

    /** {@code max t − max (t − R)} over the vertices: how much earlier the last of them happens. */
    private long[] endGain(List<Vertex> vs, int k) {
        return gainRange(vs, k, false);
    }

    /** {@code min t − min (t − R)} over the vertices: how much earlier the first of them happens. */
    private long[] startGain(List<Vertex> vs, int k) {
        return gainRange(vs, k, true);
    }

    /**
     * Both forms through {@link JoinGain}: the last's {@code x = t, A = 0, B = −R}; the first's, with
     * {@code min t = −max(−t)}, {@code x = −t, A = R, B = 0}. The lower end with the reductions' lower
     * bounds, the upper with their upper bounds (the gain grows with every reduction).
     */
    private static long[] gainRange(List<Vertex> vs, int k, boolean first) {
        int n = vs.size();
        long[] lo = new long[n];
        long[] hi = new long[n];
        long[] none = new long[n];
        long[] rLo = new long[n];
        long[] rHi = new long[n];
        for (int j = 0; j < n; j++) {
            Vertex v = vs.get(j);
            lo[j] = first ? -v.hi : v.lo;
            hi[j] = first ? -v.lo : v.hi;
            rLo[j] = first ? v.rLo[k] : -v.rLo[k];
            rHi[j] = first ? v.rHi[k] : -v.rHi[k];
        }
        long[] out = new long[2];
        long[] result = new long[2];
        JoinGain.range(lo, hi, first ? rLo : none, first ? none : rLo, n, out);
        result[0] = out[0];
        JoinGain.range(lo, hi, first ? rHi : none, first ? none : rHi, n, out);
        result[1] = out[1];
        return result;
    }

    private Progress progress(int region, ProgressPoint p) {
        List<Vertex> firsts = new ArrayList<>();
        List<Vertex> lasts = new ArrayList<>();
        for (int s = 0; s < threads.length; s++) {
            if (p.first[s] != null) {
                firsts.add(p.first[s]);
                lasts.add(p.last[s]);
            }
        }
        long periodLo = Math.max(0, lasts.stream().mapToLong(v -> v.lo).max().orElseThrow()
                - firsts.stream().mapToLong(v -> v.hi).min().orElseThrow());
        long periodHi = lasts.stream().mapToLong(v -> v.hi).max().orElseThrow()
                - firsts.stream().mapToLong(v -> v.lo).min().orElseThrow();
        Gain[] gains = new Gain[cuts.size()];
        for (int k = 0; k < cuts.size(); k++) {
            gains[k] = gain(firsts, lasts, k);
        }
        return new Progress(region, p.visits, periodLo, periodHi, gains);
    }
}
