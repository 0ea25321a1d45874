package dev.dprof.bench;

import dev.dprof.agent.bootstrap.NativeClock;
import dev.dprof.agent.bootstrap.NativeRing;
import dev.dprof.format.EventCodes;
import dev.dprof.settings.DprofSettings;
import org.openjdk.jmh.annotations.CompilerControl;

/**
 * The methods the probe benchmark calls: all empty, all kept out of line
 * ({@link CompilerControl.Mode#DONT_INLINE}, honoured by JMH's forks), so that each operation is
 * one real call the JIT cannot elide, and the only difference between them is what runs inside.
 *
 * <ul>
 * <li>{@link #plain()}: nothing. The baseline.</li>
 * <li>{@link #instrumented()}: nothing in the source; the benchmark's YAML selects it as a plain
 * region, so the agent weaves an ENTER and an EXIT probe around the empty body.</li>
 * <li>{@link #limit()}: by hand, what the cheapest conceivable ENTER + EXIT pair does — one JNI
 * {@link NativeClock#rdtsc()} and one store of tick and header into a ring already in hand
 * (a {@code long[]}, index wrap, no thread-local lookup, no publication), twice.</li>
 * <li>{@link #jfr()}: one JFR duration event ({@link BenchEvent} begin/commit) around the empty body.</li>
 * </ul>
 * Two more split the floor into its parts, for the interpretation only:
 * <ul>
 * <li>{@link #jni()}: two JNI calls that do nothing ({@code NativeRing.pending(0)} returns at once
 * on a null handle): the price of crossing into C and back.</li>
 * <li>{@link #nanoTime()}: {@link #limit()} with {@link System#nanoTime()} (a JIT intrinsic, no
 * JNI) in place of the JNI rdtsc: the floor of a pure-Java probe.</li>
 * </ul>
 *
 * <p>The region selection lives in {@link ProbeConfig}; keep the names in sync.
 */
public final class ProbeTargets {
    /**
     * Events in the {@link #limit()} ring: 2^16 slots of 16 bytes, 1 MiB, unless
     * {@link DprofSettings#BENCH_LIMIT_EVENTS_PROPERTY} (a power of two; for experiments only) says otherwise.
     */
    static final int LIMIT_EVENTS = DprofSettings.benchLimitEvents();
    private static final int LIMIT_ENTER = EventCodes.ENTER | 1 << EventCodes.REGION_SHIFT;
    private static final int LIMIT_EXIT = EventCodes.EXIT | 1 << EventCodes.REGION_SHIFT;
    /** Two longs per event: tick, header. */
    static final long[] LIMIT_RING = new long[2 * LIMIT_EVENTS];
    static long limitCursor;

    private ProbeTargets() {
    }

    @CompilerControl(CompilerControl.Mode.DONT_INLINE)
    public static void plain() {
        // the baseline: a call and a return
    }

    @CompilerControl(CompilerControl.Mode.DONT_INLINE)
    public static void instrumented() {
        // identical to plain(); the agent weaves ENTER and EXIT probes in
    }

    @CompilerControl(CompilerControl.Mode.DONT_INLINE)
    public static void limit() {
        limitStore(NativeClock.rdtsc(), LIMIT_ENTER);
        limitStore(NativeClock.rdtsc(), LIMIT_EXIT);
    }

    @CompilerControl(CompilerControl.Mode.DONT_INLINE)
    public static void jni() {
        NativeRing.pending(0);
        NativeRing.pending(0);
    }

    @CompilerControl(CompilerControl.Mode.DONT_INLINE)
    public static void nanoTime() {
        limitStore(System.nanoTime(), LIMIT_ENTER);
        limitStore(System.nanoTime(), LIMIT_EXIT);
    }

    private static void limitStore(long tick, int header) {
        long c = limitCursor;
        int i = (int) (c & (LIMIT_EVENTS - 1)) << 1;
        LIMIT_RING[i] = tick;
        LIMIT_RING[i + 1] = header;
        limitCursor = c + 1;
    }

    @CompilerControl(CompilerControl.Mode.DONT_INLINE)
    public static void jfr() {
        BenchEvent e = new BenchEvent();
        e.begin();
        e.commit();
    }
}
