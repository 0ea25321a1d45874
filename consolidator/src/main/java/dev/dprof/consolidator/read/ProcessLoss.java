package dev.dprof.consolidator.read;

import dev.dprof.format.ProcessEnd;
import dev.dprof.format.ThreadLoss;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The events one process recorded and nobody will read, counted the same way for every command
 * (docs/FORMAT.md, "Counting what was lost"). A process that ended says it in its end record, which
 * counts full rings, a queue that refused, and failed probes. A killed one is counted from what it
 * left: per thread the larger of its last loss record in the queue and its ring file's own
 * {@code lost} field (both cumulative), plus the events its rings handed back that the queue does
 * not hold. A ring file that cannot be read hides an unknown number: the count is then a lower
 * bound ({@link #exact()} false) and the file is named.
 */
public final class ProcessLoss {
    private final Map<Long, Long> recorded = new HashMap<>();
    private ProcessEnd end;

    void loss(ThreadLoss loss) {
        recorded.merge(loss.threadId(), loss.lostSoFar(), Math::max);
    }

    void end(ProcessEnd processEnd) {
        end = processEnd;
    }

    void clear() {
        recorded.clear();
        end = null;
    }

    /** The count, given what the ring files of the process add ({@link RingRecovery#NONE} for none). */
    Counted count(RingRecovery rings) {
        if (end != null) {
            return new Counted(end.lostEvents(), true, end.reason(), List.of());
        }
        Map<Long, Long> perThread = new HashMap<>(recorded);
        rings.ringLost().forEach((thread, lost) -> perThread.merge(thread, lost, Math::max));
        long full = perThread.values().stream().mapToLong(Long::longValue).sum();
        StringBuilder reason = new StringBuilder();
        if (full > 0) {
            reason.append("per-thread buffers full: ").append(full);
        }
        if (rings.refused() > 0) {
            reason.append(reason.length() > 0 ? "; " : "").append("refused by the queue: ").append(rings.refused());
        }
        if (!rings.damaged().isEmpty()) {
            reason.append(reason.length() > 0 ? "; " : "").append("unreadable ring files: ").append(rings.damaged().size());
        }
        return new Counted(full + rings.refused(), rings.damaged().isEmpty(), reason.toString(), rings.damaged());
    }

    /**
     * What a process lost.
     *
     * @param events  events counted as lost
     * @param exact   false when damaged files hide more (then {@code events} is a lower bound)
     * @param reason  why, as the end record says it, or empty
     * @param damaged the files that could not be read, one line each with what they cost
     */
    public record Counted(long events, boolean exact, String reason, List<String> damaged) {
        /** "N lost" or "at least N lost", the phrase every command prints. */
        public String phrase() {
            return (exact ? "" : "at least ") + events + " lost";
        }
    }
}
