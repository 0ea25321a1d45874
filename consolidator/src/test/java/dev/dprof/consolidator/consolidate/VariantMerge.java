package dev.dprof.consolidator.consolidate;

import dev.dprof.format.FormatException;
import dev.dprof.format.profile.ProfileEvent;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * TEST/BENCH COPY of {@link CausalMerge} over {@link VariantThreadStream}s. Keep in step with CausalMerge.
 *
 * <p>Merges the thread streams into one global order that respects program order (each stream is
 * consumed in order), message causality (a receive only after its send) and barriers (an exit
 * only after every enter of its instance) — DProf §4.5. Among the events free to go, the one
 * whose interval starts first goes next. Intervals are never changed to achieve the order.
 *
 * <p>A stream whose head must wait is parked under what it waits for and put back when that is
 * emitted. Sound data always leave an event free to go (the real order is one); should
 * inconsistent data (a key reused within one thread, say) leave none, the earliest parked event
 * goes anyway and is counted as a causality conflict.
 */
final class VariantMerge {
    /** Receives merged events. */
    interface Sink {
        void accept(ProfileEvent event) throws java.io.IOException;
    }

    private final CausalIndex index;
    private final PriorityQueue<VariantThreadStream> ready = new PriorityQueue<>(
            Comparator.comparingLong(VariantThreadStream::lo).thenComparingLong(VariantThreadStream::hi)
                    .thenComparingInt(s -> s.stream));
    private final Map<Integer, List<VariantThreadStream>> parked = new HashMap<>();
    private final boolean[] sent;
    private final int[] entersMissing;
    private final ProfileEvent event = new ProfileEvent();
    private long conflicts;
    private long unbounded;
    private long emitted;

    VariantMerge(CausalIndex index, List<VariantThreadStream> streams) throws FormatException {
        this.index = index;
        this.sent = new boolean[index.rows()];
        this.entersMissing = new int[index.barrierInstanceCount()];
        for (int i = 0; i < entersMissing.length; i++) {
            entersMissing[i] = index.barrierEnters(i);
        }
        for (VariantThreadStream s : streams) {
            if (s.advance()) {
                offer(s);
            } else {
                s.close();
            }
        }
    }

    /** Emits every event in order; returns how many. */
    long run(Sink sink) throws FormatException, java.io.IOException {
        while (true) {
            VariantThreadStream s = ready.poll();
            if (s == null) {
                s = forceOneParked();
                if (s == null) {
                    return emitted;
                }
            }
            emit(s, sink);
            if (s.advance()) {
                offer(s);
            } else {
                s.close();
            }
        }
    }

    private void offer(VariantThreadStream s) {
        int waits = s.waitsFor();
        if (waits != CausalIndex.NO_DEPENDENCY && !satisfied(waits)) {
            parked.computeIfAbsent(waits, k -> new ArrayList<>()).add(s);
        } else {
            ready.add(s);
        }
    }

    private boolean satisfied(int token) {
        return token < sent.length ? sent[token] : entersMissing[token - sent.length] <= 0;
    }

    private void emit(VariantThreadStream s, Sink sink) throws java.io.IOException {
        int signal = s.signals();
        if (signal != CausalIndex.NO_DEPENDENCY) {
            if (signal < sent.length) {
                sent[signal] = true;
            } else {
                entersMissing[signal - sent.length]--;
            }
            if (satisfied(signal)) {
                List<VariantThreadStream> waiting = parked.remove(signal);
                if (waiting != null) {
                    ready.addAll(waiting);
                }
            }
        }
        if (s.lo() == Long.MIN_VALUE || s.hi() == Long.MAX_VALUE) {
            unbounded++;
            return;
        }
        event.stream = s.stream;
        event.kind = s.kind();
        event.region = s.region();
        event.tick = s.tick();
        event.lo = s.lo();
        event.hi = s.hi();
        event.truth = s.truth(ProfileEvent.NO_TRUTH);
        event.a = s.a();
        event.b = s.b();
        sink.accept(event);
        emitted++;
    }

    /** With nothing free to go, releases the parked stream whose head starts first. */
    private VariantThreadStream forceOneParked() {
        VariantThreadStream best = null;
        int bestKey = 0;
        for (Map.Entry<Integer, List<VariantThreadStream>> e : parked.entrySet()) {
            for (VariantThreadStream s : e.getValue()) {
                if (best == null || s.lo() < best.lo()) {
                    best = s;
                    bestKey = e.getKey();
                }
            }
        }
        if (best != null) {
            conflicts++;
            List<VariantThreadStream> list = parked.get(bestKey);
            list.remove(best);
            if (list.isEmpty()) {
                parked.remove(bestKey);
            }
        }
        return best;
    }

    long conflicts() {
        return conflicts;
    }

    /** Events dropped because their stretch had no sound bound. */
    long unbounded() {
        return unbounded;
    }
}
