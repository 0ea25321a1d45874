package dev.dprof.format;

/**
 * The second payload of a {@link EventKind#BARRIER_ENTER} / {@link EventKind#BARRIER_EXIT}: what
 * kind of collective the instance is and who this participant is in it. Packed into one long
 * (bit layout in {@link EventCodes}) so that the agent's ring slot keeps its two payload values;
 * participants in the low bits, so a version 1 payload (participants only) is an N-to-N shape and
 * a barrier's shape stays a 1–3 byte varint.
 *
 * @param flavour      null when the probe could not record the shape (a value out of range)
 * @param participants how many take part
 * @param rank         this participant's rank (0 where the flavour does not need it)
 * @param root         the root's rank (0 where the flavour has none)
 */
public record CollectiveShape(CollectiveFlavour flavour, long participants, long rank, long root) {

    /** The shape of a version 1 barrier, and of every N-to-N collective. */
    public static CollectiveShape barrier(long participants) {
        return new CollectiveShape(CollectiveFlavour.N_TO_N, participants, 0, 0);
    }

    /**
     * Packs a shape; a value outside {@code [0, }{@link EventCodes#SHAPE_FIELD_MAX}{@code ]} packs
     * as {@link EventCodes#FLAVOUR_INVALID}, which readers report and which implies no order.
     */
    public static long pack(int flavourCode, long participants, long rank, long root) {
        long max = EventCodes.SHAPE_FIELD_MAX;
        if (participants < 0 || participants > max || rank < 0 || rank > max || root < 0 || root > max
                || flavourCode < 0 || flavourCode > EventCodes.FLAVOUR_INVALID) {
            return (long) EventCodes.FLAVOUR_INVALID << EventCodes.SHAPE_FLAVOUR_SHIFT;
        }
        return participants | (long) flavourCode << EventCodes.SHAPE_FLAVOUR_SHIFT
                | rank << EventCodes.SHAPE_RANK_SHIFT | root << EventCodes.SHAPE_ROOT_SHIFT;
    }

    public long pack() {
        return pack(flavour == null ? EventCodes.FLAVOUR_INVALID : flavour.code, participants, rank, root);
    }

    public static CollectiveShape unpack(long b) {
        long max = EventCodes.SHAPE_FIELD_MAX;
        int code = (int) (b >>> EventCodes.SHAPE_FLAVOUR_SHIFT) & 0xF;
        return new CollectiveShape(CollectiveFlavour.ofCode(code), b & max, b >>> EventCodes.SHAPE_RANK_SHIFT & max,
                b >>> EventCodes.SHAPE_ROOT_SHIFT & max);
    }

    /** The flavour of a packed shape, or null when invalid: for readers that need nothing else. */
    public static CollectiveFlavour flavourOf(long b) {
        return CollectiveFlavour.ofCode((int) (b >>> EventCodes.SHAPE_FLAVOUR_SHIFT) & 0xF);
    }

    /** The participants of a packed shape. */
    public static long participantsOf(long b) {
        return b & EventCodes.SHAPE_FIELD_MAX;
    }

    /** Whether this participant is the root of a rooted flavour. */
    public boolean isRoot() {
        return flavour != null && flavour.rooted && rank == root;
    }

    @Override
    public String toString() {
        if (flavour == null) {
            return "invalid shape";
        }
        return flavour.label + " of " + participants + (flavour.ranked ? ", rank " + rank : "")
                + (flavour.rooted ? ", root " + root : "");
    }
}
