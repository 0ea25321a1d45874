package dev.dprof.cli.suggest;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;

/**
 * Counts what a recording says about each application method and picks the regions.
 *
 * <p>Three lists, each of at most {@code top} methods, in this order (a method in an earlier list is not
 * repeated; its line in a later one joins its comment):
 * <ol>
 * <li><b>Inclusive time</b>: the share of execution samples with the method on the stack (counted once per
 * sample, whatever the recursion), ties broken by the share with it as the innermost application frame.
 * These are the hot computations, and the calls that contain them. A lambda's body that only calls one
 * method ({@code () -> worker.run()}) is left to that method, whose name is stable; a small method called
 * from a hot loop, which the JIT inlined there, is left to its caller (its region would cost more than its
 * body).</li>
 * <li><b>Pool tasks</b>: the application method a pool worker ({@code ThreadPoolExecutor},
 * {@code ForkJoinPool}) runs as its task — the innermost accepted frame above the pool's own — by the share of
 * samples in it. A request handled by a pool is one call of this method.</li>
 * <li><b>Waits</b>: the application method that called a blocking operation (the innermost accepted frame of a
 * park, a monitor wait, a socket read or write the recorder kept), by the total time waited. Each is told apart
 * by {@link WaitKind}; idle pool workers are not waits of anybody's request.</li>
 * </ol>
 * Only methods the filter accepts count ({@link MethodFilter}); a method seen in under one percent of the
 * samples of the application is not suggested for its time.
 */
public final class Tally {
    /** The least share of the application's samples for a method to be suggested for its time, in percent. */
    static final double MIN_SHARE_PERCENT = 1.0;

    private static final Set<String> POOL_RUNNERS = Set.of("java.util.concurrent.ThreadPoolExecutor#runWorker",
            "java.util.concurrent.ForkJoinPool#runWorker", "java.util.concurrent.ForkJoinWorkerThread#run");

    private final MethodFilter filter;
    private final Map<Frame, Counts> counts = new HashMap<>();
    private final Map<WaitKind, long[]> waitsOutside = new EnumMap<>(WaitKind.class);
    private final Set<Frame> hotCallees = new HashSet<>();
    private long samples;
    private long applicationSamples;

    public Tally(MethodFilter filter) {
        this.filter = filter;
    }

    /** What was counted of one method. */
    static final class Counts {
        long inclusive;
        long innermost;
        long poolTask;
        /** Samples in which the method ran compiled, and in which it was inlined into its caller. */
        long compiled;
        long inlined;
        /** The accepted method it called in every sample, or null when there were several or none. */
        Frame soleCallee;
        boolean severalCallees;
        final Map<WaitKind, long[]> waits = new EnumMap<>(WaitKind.class);

        long waitedNanos() {
            return waits.entrySet().stream().filter(e -> e.getKey() != WaitKind.POOL_IDLE)
                    .mapToLong(e -> e.getValue()[1]).sum();
        }
    }

    /** One execution sample's stack, innermost frame first, no frame of it compiled or inlined. */
    public void sample(List<Frame> stack) {
        sample(stack, new BitSet(), new BitSet());
    }

    /**
     * One execution sample's stack, innermost frame first; {@code compiled} and {@code inlined} hold the indexes
     * of the frames the JIT had compiled, and of those it had inlined into their caller.
     */
    public void sample(List<Frame> stack, BitSet compiled, BitSet inlined) {
        samples++;
        List<Frame> accepted = new ArrayList<>(stack.size());
        for (int i = 0; i < stack.size(); i++) {
            Frame f = stack.get(i);
            if (filter.accepts(f) && !accepted.contains(f)) {
                accepted.add(f);
                Counts c = counts(f);
                c.compiled += compiled.get(i) ? 1 : 0;
                c.inlined += inlined.get(i) ? 1 : 0;
            }
        }
        if (accepted.isEmpty()) {
            return;
        }
        applicationSamples++;
        for (int i = 0; i < accepted.size(); i++) {
            Counts c = counts(accepted.get(i));
            c.inclusive++;
            Frame callee = i == 0 ? null : accepted.get(i - 1);
            if (c.inclusive == 1) {
                c.soleCallee = callee;
            } else if (!Objects.equals(c.soleCallee, callee)) {
                c.severalCallees = true;
            }
        }
        counts(accepted.get(0)).innermost++;
        Frame task = poolTask(stack);
        if (task != null) {
            counts(task).poolTask++;
        }
    }

    /**
     * A wait of {@code nanos} with its stack, innermost frame first. {@code event} is what the recorder
     * said: {@link WaitKind#SOCKET_READ} or {@link WaitKind#SOCKET_WRITE}, or {@link WaitKind#PARK} and
     * {@link WaitKind#MONITOR_WAIT}, which the JDK frames above the application's refine ({@link WaitKind#ofPark}).
     */
    public void waited(WaitKind event, long nanos, List<Frame> stack) {
        int first = 0;
        while (first < stack.size() && !filter.accepts(stack.get(first))) {
            first++;
        }
        WaitKind kind = event == WaitKind.PARK || event == WaitKind.MONITOR_WAIT
                ? WaitKind.ofPark(stack.subList(0, first), event == WaitKind.MONITOR_WAIT) : event;
        long[] sum = first == stack.size() ? waitsOutside.computeIfAbsent(kind, k -> new long[2])
                : counts(stack.get(first)).waits.computeIfAbsent(kind, k -> new long[2]);
        sum[0]++;
        sum[1] += nanos;
    }

    private Frame poolTask(List<Frame> stack) {
        for (int i = 0; i < stack.size(); i++) {
            Frame f = stack.get(i);
            if (f.jdk() && POOL_RUNNERS.contains(f.className() + "#" + f.methodName())) {
                for (int j = i - 1; j >= 0; j--) {
                    if (filter.accepts(stack.get(j))) {
                        return stack.get(j);
                    }
                }
                return null;
            }
        }
        return null;
    }

    private Counts counts(Frame f) {
        return counts.computeIfAbsent(f, k -> new Counts());
    }

    /**
     * Says that a JIT compiler inlined {@code callee} at a call site it found hot: the method is called from a hot
     * loop, so a region on it would be entered at the loop's rate. Only its class, name and descriptor count.
     */
    public void inlinedAtHotSite(Frame callee) {
        hotCallees.add(callee);
    }

    /** All execution samples. */
    public long samples() {
        return samples;
    }

    /** The execution samples with at least one accepted frame. */
    public long applicationSamples() {
        return applicationSamples;
    }

    /** Waits, by kind, in which no frame was accepted: {count, nanoseconds}. */
    public Map<WaitKind, long[]> waitsOutside() {
        return Collections.unmodifiableMap(waitsOutside);
    }

    /** A suggested region: the method and why, one phrase per reason, in the order they were found. */
    public record Suggestion(Frame method, List<String> reasons) {
    }

    /** The suggested regions: at most {@code top} of each list, in the order of the lists (see the class comment). */
    public List<Suggestion> suggest(int top) {
        Map<Frame, List<String>> chosen = new LinkedHashMap<>();
        long min = Math.max(1, (long) Math.ceil(applicationSamples * MIN_SHARE_PERCENT / 100));
        for (Frame f : ranked(c -> c.inclusive, c -> c.innermost, min, top, f -> passesThrough(f) || inlined(f))) {
            Counts c = counts.get(f);
            chosen.computeIfAbsent(f, k -> new ArrayList<>()).add("on the stack in " + percent(c.inclusive)
                    + " of the application's samples" + (c.innermost == 0 ? ""
                    : " (the innermost of the application's methods in " + percent(c.innermost) + ")"));
        }
        for (Frame f : ranked(c -> c.poolTask, c -> c.inclusive, min, top, f -> false)) {
            chosen.computeIfAbsent(f, k -> new ArrayList<>()).add(String.format(Locale.ROOT,
                    "a pool worker's task: %s of the application's samples", percent(counts.get(f).poolTask)));
        }
        for (Frame f : ranked(Counts::waitedNanos, c -> c.inclusive, 1, top, f -> false)) {
            List<String> reasons = chosen.computeIfAbsent(f, k -> new ArrayList<>());
            counts.get(f).waits.entrySet().stream().filter(e -> e.getKey() != WaitKind.POOL_IDLE)
                    .sorted(Comparator.comparingLong((Map.Entry<WaitKind, long[]> e) -> -e.getValue()[1]))
                    .forEach(e -> reasons.add(String.format(Locale.ROOT, "waited %s in %d %s (%s)",
                            seconds(e.getValue()[1]), e.getValue()[0], e.getKey().plural(), e.getKey().recorded())));
        }
        return chosen.entrySet().stream().map(e -> new Suggestion(e.getKey(), List.copyOf(e.getValue()))).toList();
    }

    /** The accepted methods with {@code measure ≥ min}, largest first, then by {@code tie}, then by name. */
    private List<Frame> ranked(ToLongFunction<Counts> measure, ToLongFunction<Counts> tie, long min, int top,
            Predicate<Frame> leftOut) {
        return counts.entrySet().stream().filter(e -> measure.applyAsLong(e.getValue()) >= min)
                .filter(e -> !leftOut.test(e.getKey()))
                .sorted(Comparator.comparingLong((Map.Entry<Frame, Counts> e) -> -measure.applyAsLong(e.getValue()))
                        .thenComparingLong(e -> -tie.applyAsLong(e.getValue()))
                        .thenComparing(e -> e.getKey().toString()))
                .limit(top).map(Map.Entry::getKey).toList();
    }

    /**
     * Whether {@code f} is a lambda's body that only passes the call on ({@code () -> worker.run()}): in every
     * sample it called the same accepted method, which times the same samples under a name that does not change
     * when the source around the lambda does.
     */
    private boolean passesThrough(Frame f) {
        Counts c = counts.get(f);
        return f.isLambdaBody() && c.innermost == 0 && !c.severalCallees && c.soleCallee != null;
    }

    /**
     * Whether {@code f} is a small method called from a hot loop (K-Means' distance, millions of calls a second),
     * whose region would cost more than its body and overflow the thread's buffer: a JIT compiler inlined it at a
     * call site it found hot ({@link #inlinedAtHotSite}), or it ran inlined into its caller in most of the samples
     * in which it ran compiled (samples in the interpreter say nothing of it). Its caller's region times the
     * same work at the loop's rate. A recording too short for the JIT to compile the loop has neither sign.
     */
    private boolean inlined(Frame f) {
        Counts c = counts.get(f);
        return hotCallees.contains(f) || c.compiled > 0 && c.inlined * 2 > c.compiled;
    }

    private String percent(long n) {
        return String.format(Locale.ROOT, "%.1f%%", 100.0 * n / Math.max(1, applicationSamples));
    }

    /** Nanoseconds as seconds with three decimals, {@code 1.204 s}. */
    public static String seconds(long nanos) {
        return String.format(Locale.ROOT, "%.3f s", nanos / 1e9);
    }
}
