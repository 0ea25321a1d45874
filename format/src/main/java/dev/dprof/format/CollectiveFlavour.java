package dev.dprof.format;

/**
 * Which enters of a collective instance happen before which exits: the flavours of Becker et al.
 * 2009, §4.1, as logical send/receive pairs (an enter is a logical send, an exit a logical
 * receive). Ranks are the participants' ranks within the instance, the root's included.
 *
 * <p>The paper's scan formula has the indices the wrong way round; the pairs here are MPI's
 * semantics: rank j's scan result includes the contributions of ranks 0..j (exclusive: 0..j−1),
 * so those enters precede j's exit (and Table 2's "max (some enters)" agrees).
 */
public enum CollectiveFlavour {
    /** Barrier, all-reduce, all-gather, all-to-all: every enter precedes every exit. */
    N_TO_N(EventCodes.FLAVOUR_N_TO_N, "allreduce", false, false),
    /** Broadcast, scatter: the root's enter precedes every exit. */
    ONE_TO_N(EventCodes.FLAVOUR_ONE_TO_N, "bcast", true, true),
    /** Reduce, gather: every enter precedes the root's exit. */
    N_TO_ONE(EventCodes.FLAVOUR_N_TO_ONE, "reduce", true, true),
    /** Inclusive scan: the enter of rank i precedes the exit of every rank j ≥ i. */
    SCAN(EventCodes.FLAVOUR_SCAN, "scan", false, true),
    /** Exclusive scan: the enter of rank i precedes the exit of every rank j > i. */
    EXSCAN(EventCodes.FLAVOUR_EXSCAN, "exscan", false, true);

    public final int code;
    /** The name in the YAML configuration and in reports. */
    public final String label;
    /** Whether one participant is the root. */
    public final boolean rooted;
    /** Whether the edges depend on the participants' ranks. */
    public final boolean ranked;

    CollectiveFlavour(int code, String label, boolean rooted, boolean ranked) {
        this.code = code;
        this.label = label;
        this.rooted = rooted;
        this.ranked = ranked;
    }

    /** Whether the enter of rank {@code enterRank} happens before the exit of rank {@code exitRank}. */
    public boolean precedes(long enterRank, long exitRank, long root) {
        return switch (this) {
            case N_TO_N -> true;
            case ONE_TO_N -> enterRank == root;
            case N_TO_ONE -> exitRank == root;
            case SCAN -> enterRank <= exitRank;
            case EXSCAN -> enterRank < exitRank;
        };
    }

    /** The flavour with this code, or {@code null} (an invalid or unknown shape). */
    public static CollectiveFlavour ofCode(int code) {
        for (CollectiveFlavour f : values()) {
            if (f.code == code) {
                return f;
            }
        }
        return null;
    }

    /** The names a configuration may give a flavour: the MPI operations of Becker §4.1 it stands for. */
    public static final java.util.List<String> NAMES = java.util.List.of("allreduce", "barrier", "allgather",
            "alltoall", "bcast", "scatter", "reduce", "gather", "scan", "exscan");

    /** The flavour of one of {@link #NAMES} (case-insensitive), or {@code null}. */
    public static CollectiveFlavour ofName(String name) {
        return switch (name.toLowerCase(java.util.Locale.ROOT)) {
            case "allreduce", "barrier", "allgather", "alltoall" -> N_TO_N;
            case "bcast", "scatter" -> ONE_TO_N;
            case "reduce", "gather" -> N_TO_ONE;
            case "scan" -> SCAN;
            case "exscan" -> EXSCAN;
            default -> null;
        };
    }
}
