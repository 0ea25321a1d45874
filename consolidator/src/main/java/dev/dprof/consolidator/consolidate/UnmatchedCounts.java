package dev.dprof.consolidator.consolidate;

import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.format.HandoffRegions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The run's events that matched nothing, counted once, at consolidation, by kind, event and reason
 * ({@link ProfileInfo.Unmatched}); every output prints these counts and no other.
 */
final class UnmatchedCounts {
    static final String SEND = "send";
    static final String RECEIVE = "receive";
    static final String PUT = "put";
    static final String TAKE = "take";

    static final String PEER_NOT_PROFILED = "peer not profiled";
    static final String NOT_TOLD_APART = "connection not told apart from others on the same addresses and ports";
    static final String UNDESCRIBED = "connection its process did not describe";
    static final String NOT_READ = "not read within the run (the reader's recording ended first)";
    static final String WRITTEN_BEFORE = "written before the recording began, or lost";
    static final String NO_RECEIVE = "no receive of its key recorded (peer not profiled, or received after the run)";
    static final String NO_SEND = "no send of its key recorded (peer not profiled, or sent before the run)";
    static final String KEY_SENT_TWICE = "its key was sent twice while in flight";
    static final String NOT_TAKEN = "nothing took it within the run";
    static final String NO_PUT = "no recorded put (put before the run, or by a path not woven)";

    private record Key(String kind, String event, String reason) {
    }

    private final Map<Key, long[]> counts = new LinkedHashMap<>();

    void add(String kind, String event, String reason) {
        counts.computeIfAbsent(new Key(kind, event, reason), k -> new long[1])[0]++;
    }

    /** Every unmatched event of this side ({@link #SEND}, …). */
    int total(String event) {
        return (int) counts.entrySet().stream().filter(e -> e.getKey().event().equals(event))
                .mapToLong(e -> e.getValue()[0]).sum();
    }

    /** By kind in the order met, then sends, receives, puts, takes, the most frequent reason first. */
    List<ProfileInfo.Unmatched> rows() {
        List<String> kinds = new ArrayList<>();
        counts.keySet().forEach(k -> {
            if (!kinds.contains(k.kind())) {
                kinds.add(k.kind());
            }
        });
        List<String> events = List.of(SEND, RECEIVE, PUT, TAKE);
        return counts.entrySet().stream()
                .sorted(Comparator.<Map.Entry<Key, long[]>>comparingInt(e -> kinds.indexOf(e.getKey().kind()))
                        .thenComparingInt(e -> events.indexOf(e.getKey().event()))
                        .thenComparingLong(e -> -e.getValue()[0]))
                .map(e -> new ProfileInfo.Unmatched(e.getKey().kind(), e.getKey().event(), e.getKey().reason(),
                        e.getValue()[0]))
                .toList();
    }

    /** Why a put of a handoff kind ({@link #handoffKind}) was not taken, in the kind's own terms. */
    static String notTaken(String kind) {
        return switch (kind.substring(kind.indexOf(' ') + 1)) {
            case "queue" -> "still queued at the end, or removed by a path not woven";
            case "executor" -> "a task not run by the end";
            case "future" -> "a future nobody waited for";
            case "thread" -> "a thread nobody joined, or a start whose thread recorded nothing";
            case "monitor" -> "a notify no waiting thread woke from";
            default -> NOT_TAKEN;
        };
    }

    /** {@code handoff KIND} of a handoff region's name (its site names start with the kind), else {@code handoff custom}. */
    static String handoffKind(String regionName) {
        for (HandoffRegions.Kind k : HandoffRegions.Kind.values()) {
            if (regionName.startsWith(k.yamlName() + ": ")) {
                return "handoff " + k.yamlName();
            }
        }
        return "handoff " + HandoffRegions.Kind.CUSTOM.yamlName();
    }
}
