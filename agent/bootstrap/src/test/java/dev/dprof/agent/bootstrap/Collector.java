package dev.dprof.agent.bootstrap;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Gathers drained events per thread and notes any breach of the visitor contract. */
final class Collector implements RingVisitor {
    final Map<Long, List<Slot>> events = new HashMap<>();
    final Map<Long, Long> lost = new HashMap<>();
    final Set<Long> ended = new HashSet<>();
    final List<String> violations = new ArrayList<>();

    @Override
    public synchronized void batch(long tid, ByteBuffer slots, int count, long lostSoFar, boolean threadEnded) {
        if (ended.contains(tid)) {
            violations.add("batch for thread " + tid + " after its end");
        }
        if (slots.limit() != count * Rings.SLOT_BYTES) {
            violations.add("limit " + slots.limit() + " for " + count + " slots");
        }
        Long before = lost.put(tid, lostSoFar);
        if (before != null && before > lostSoFar) {
            violations.add("lost went down for thread " + tid);
        }
        List<Slot> list = events.computeIfAbsent(tid, k -> new ArrayList<>());
        for (int i = 0; i < count; i++) {
            list.add(Slot.read(slots, i));
        }
        if (threadEnded) {
            ended.add(tid);
        }
    }

    synchronized List<Slot> of(long tid) {
        return new ArrayList<>(events.getOrDefault(tid, List.of()));
    }

    synchronized long lostOf(long tid) {
        return lost.getOrDefault(tid, 0L);
    }

    synchronized boolean hasEnded(long tid) {
        return ended.contains(tid);
    }

    synchronized boolean allEnded(Iterable<Long> tids) {
        for (long t : tids) {
            if (!ended.contains(t)) {
                return false;
            }
        }
        return true;
    }
}
