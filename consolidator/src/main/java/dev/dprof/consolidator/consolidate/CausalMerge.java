package dev.dprof.consolidator.consolidate;

import dev.dprof.format.FormatException;
import dev.dprof.format.profile.ProfileEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Merges the thread streams into one global order that respects program order (each stream is
 * consumed in order), message causality (a receive only after its send) and barriers (an exit
 * only after every enter of its instance) — DProf §4.5. Among the events free to go, the one
 * whose interval starts first goes next. Intervals are never changed to achieve the order.
 *
 * <p>A stream whose head must wait is parked under what it waits for and put back when that is
 * emitted. Sound data always leave an event free to go (the real order is one); should
 * inconsistent data (a key reused within one thread, say) leave none, the earliest parked event
 * goes anyway and is counted as a causality conflict.
 */
final class CausalMerge {
    /** Receives merged events. */
    interface Sink {
        void accept(ProfileEvent event) throws java.io.IOException;
    }

    private final CausalIndex index;
    /** The streams free to go: a binary min-heap on (lo, hi, stream) of their heads. */
    private ThreadStream[] heap = new ThreadStream[16];
    private int size;
    private final List<ThreadStream> released = new ArrayList<>();
    private final Map<Integer, List<ThreadStream>> parked = new HashMap<>();
    private final boolean[] sent;
    private final int[] entersMissing;
    private final ProfileEvent event = new ProfileEvent();
    private long conflicts;
    private long unbounded;
    private long emitted;

    CausalMerge(CausalIndex index, List<ThreadStream> streams) throws FormatException {
        this.index = index;
        this.sent = new boolean[index.rows()];
        this.entersMissing = new int[index.barrierInstanceCount()];
        for (int i = 0; i < entersMissing.length; i++) {
            entersMissing[i] = index.barrierEnters(i);
        }
        for (ThreadStream s : streams) {
            if (s.advance()) {
                offer(s);
            } else {
                s.close();
            }
        }
    }

    /**
     * Emits every event in order; returns how many. The stream on top is emitted and advanced in
     * place (one sift down), the usual case; streams its event released join afterwards.
     */
    long run(Sink sink) throws FormatException, java.io.IOException {
        while (true) {
            if (size == 0) {
                ThreadStream s = forceOneParked();
                if (s == null) {
                    return emitted;
                }
                emit(s, sink);
                if (s.advance()) {
                    offer(s);
                } else {
                    s.close();
                }
            } else {
                ThreadStream s = heap[0];
                emit(s, sink);
                if (!s.advance()) {
                    removeTop();
                    s.close();
                } else if (blocked(s)) {
                    removeTop();
                    park(s);
                } else {
                    siftDown(0);
                }
            }
            for (int i = 0; i < released.size(); i++) {
                push(released.get(i));
            }
            released.clear();
        }
    }

    private static boolean before(ThreadStream a, ThreadStream b) {
        return a.headLo < b.headLo || a.headLo == b.headLo
                && (a.headHi < b.headHi || a.headHi == b.headHi && a.stream < b.stream);
    }

    private void push(ThreadStream s) {
        if (size == heap.length) {
            heap = java.util.Arrays.copyOf(heap, size * 2);
        }
        int i = size++;
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            if (!before(s, heap[parent])) {
                break;
            }
            heap[i] = heap[parent];
            i = parent;
        }
        heap[i] = s;
    }

    private void removeTop() {
        ThreadStream last = heap[--size];
        heap[size] = null;
        if (size > 0) {
            heap[0] = last;
            siftDown(0);
        }
    }

    private void siftDown(int i) {
        ThreadStream s = heap[i];
        while (true) {
            int child = 2 * i + 1;
            if (child >= size) {
                break;
            }
            if (child + 1 < size && before(heap[child + 1], heap[child])) {
                child++;
            }
            if (!before(heap[child], s)) {
                break;
            }
            heap[i] = heap[child];
            i = child;
        }
        heap[i] = s;
    }

    private boolean blocked(ThreadStream s) {
        int waits = s.waitsFor();
        return waits != CausalIndex.NO_DEPENDENCY && !satisfied(waits);
    }

    private void park(ThreadStream s) {
        parked.computeIfAbsent(s.waitsFor(), k -> new ArrayList<>()).add(s);
    }

    private void offer(ThreadStream s) {
        if (blocked(s)) {
            park(s);
        } else {
            push(s);
        }
    }

    private boolean satisfied(int token) {
        return token < sent.length ? sent[token] : entersMissing[token - sent.length] <= 0;
    }

    private void emit(ThreadStream s, Sink sink) throws java.io.IOException {
        int signal = s.signals();
        if (signal != CausalIndex.NO_DEPENDENCY) {
            if (signal < sent.length) {
                sent[signal] = true;
            } else {
                entersMissing[signal - sent.length]--;
            }
            if (satisfied(signal)) {
                List<ThreadStream> waiting = parked.remove(signal);
                if (waiting != null) {
                    released.addAll(waiting);
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
    private ThreadStream forceOneParked() {
        ThreadStream best = null;
        int bestKey = 0;
        for (Map.Entry<Integer, List<ThreadStream>> e : parked.entrySet()) {
            for (ThreadStream s : e.getValue()) {
                if (best == null || s.lo() < best.lo()) {
                    best = s;
                    bestKey = e.getKey();
                }
            }
        }
        if (best != null) {
            conflicts++;
            List<ThreadStream> list = parked.get(bestKey);
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
