package dev.dprof.calibrator.net;

import dev.dprof.format.calibration.Zero;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * One calibration epoch: the round trips that got a valid reply, of {@code sent} tried. Every one
 * of them is a sound zero (DProf Alg. 4); the epoch keeps the tightest, the one with the smallest
 * {@code k2 − k1}, since a narrower trap bounds the conversion more tightly.
 *
 * @param epoch      the epoch's number, counting from 0 for the node's first burst (missed ones included)
 * @param sent       pings sent
 * @param roundTrips the answered round trips without a conflict, in order
 * @param conflicted answered round trips left out because their ping got a second, different
 *                   answer (a forger racing the parent, or a duplicated ping; {@link NodeLink})
 */
public record Burst(int epoch, int sent, List<Zero> roundTrips, int conflicted) {
    public Burst {
        roundTrips = List.copyOf(roundTrips);
    }

    /** This epoch continued by {@code more} round trips of the same epoch. */
    public Burst and(Burst more) {
        List<Zero> all = new ArrayList<>(roundTrips);
        all.addAll(more.roundTrips);
        return new Burst(epoch, sent + more.sent, all, conflicted + more.conflicted);
    }

    /** The epoch's zero, empty when no ping was answered (a miss). */
    public Optional<Zero> tightest() {
        return roundTrips.stream().min(Comparator.comparingLong(Zero::widthTicks));
    }

    /** The median round-trip width in node ticks, or -1 for a miss. */
    public long medianWidthTicks() {
        if (roundTrips.isEmpty()) {
            return -1;
        }
        long[] w = roundTrips.stream().mapToLong(Zero::widthTicks).sorted().toArray();
        return w[w.length / 2];
    }
}
