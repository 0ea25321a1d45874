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
 * bound ({@link Counted#exact()} false) and the file is named; so does a queue file cut short, unless
 * the process was killed and its ring files count what the cut took ({@link RingRecovery#cutOff}).
 */
public final class ProcessLoss {
    private final Map<Long, Long> recorded = new HashMap<>();
    private ProcessEnd end;
    /** Events of batches found corrupt while reading, and whether some damage hid an unknown number more. */
    private long corrupt;
    private boolean hidden;
    /** Whether a queue file was cut short: exact only when the ring files count what the cut took. */
    private boolean cut;

    void loss(ThreadLoss loss) {
        recorded.merge(loss.threadId(), loss.lostSoFar(), Math::max);
    }

    void end(ProcessEnd processEnd) {
        end = processEnd;
    }

    void clear() {
        recorded.clear();
        end = null;
        corrupt = 0;
        hidden = false;
        cut = false;
    }

    /** A queue file cut short: what lay past the cut is unknown unless the ring files count it. */
    void cut() {
        cut = true;
    }

    /** {@code events} of a corrupt batch left out. */
    void corrupt(long events) {
        corrupt += events;
    }

    /** Damage that hides an unknown number of events (a cut queue file, a record whose count is unreadable). */
    void hidden() {
        hidden = true;
    }

    /** The count, given what the ring files of the process add ({@link RingRecovery#NONE} for none). */
    Counted count(RingRecovery rings) {
        String corruptReason = corrupt > 0 ? "corrupt batches: " + corrupt : "";
        if (end != null) {
            String reason = end.reason().isEmpty() ? corruptReason
                    : corruptReason.isEmpty() ? end.reason() : end.reason() + "; " + corruptReason;
            return new Counted(end.lostEvents() + corrupt, !hidden && !cut, reason, List.of(), corrupt);
        }
        Map<Long, Long> perThread = new HashMap<>(recorded);
        rings.ringLost().forEach((thread, lost) -> perThread.merge(thread, lost, Math::max));
        long full = perThread.values().stream().mapToLong(Long::longValue).sum();
        StringBuilder reason = new StringBuilder();
        if (full > 0) {
            reason.append("per-thread buffers full: ").append(full);
        }
        if (rings.refused() > rings.cutOff()) {
            reason.append(reason.length() > 0 ? "; " : "").append("refused by the queue: ")
                    .append(rings.refused() - rings.cutOff());
        }
        if (rings.cutOff() > 0) {
            reason.append(reason.length() > 0 ? "; " : "").append("cut off with the queue file: ").append(rings.cutOff());
        }
        long unreadable = rings.damaged().size();
        if (unreadable > 0) {
            reason.append(reason.length() > 0 ? "; " : "").append("unreadable ring files: ").append(unreadable);
        }
        if (rings.corruptSlots() > 0) {
            reason.append(reason.length() > 0 ? "; " : "").append("corrupt ring slots: ").append(rings.corruptSlots());
        }
        if (corrupt > 0) {
            reason.append(reason.length() > 0 ? "; " : "").append(corruptReason);
        }
        return new Counted(full + rings.refused() + rings.corruptSlots() + corrupt,
                unreadable == 0 && !hidden && (!cut || rings.countsTheCut()),
                reason.toString(),
                rings.damaged(), corrupt);
    }

    /**
     * What a process lost.
     *
     * @param events  events counted as lost
     * @param exact   false when damaged files hide more (then {@code events} is a lower bound)
     * @param reason  why, as the end record says it, or empty
     * @param damaged the files that could not be read, one line each with what they cost
     * @param corrupt of {@code events}, those of batches found corrupt while reading
     */
    public record Counted(long events, boolean exact, String reason, List<String> damaged, long corrupt) {
        /** "N lost" or "at least N lost", the phrase every command prints. */
        public String phrase() {
            return (exact ? "" : "at least ") + events + " lost";
        }

        /** The same count with the corrupt batches counted by another reading ({@code corrupt} events). */
        public Counted withCorrupt(long corruptEvents) {
            String own = "corrupt batches: " + corrupt;
            String other = corruptEvents > 0 ? "corrupt batches: " + corruptEvents : "";
            String r = corrupt > 0 ? reason.replace(own, other) : reason.isEmpty() || other.isEmpty() ? reason + other
                    : reason + "; " + other;
            r = r.replace("; ;", ";").replaceAll("^; |; $", "");
            return new Counted(events - corrupt + corruptEvents, exact, r, damaged, corruptEvents);
        }
    }
}
