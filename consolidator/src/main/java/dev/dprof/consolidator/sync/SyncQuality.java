package dev.dprof.consolidator.sync;

import dev.dprof.consolidator.analysis.messages.CollectiveMatcher;
import dev.dprof.consolidator.analysis.messages.MessageMatcher;
import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.profile.ProfileException;
import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.format.FormatException;
import dev.dprof.format.profile.ProfileEvent;
import dev.dprof.format.profile.ProfileEventsReader;
import java.io.IOException;
import java.util.List;

/**
 * How well a synchronization keeps what must hold, measured on one timestamp per event (a point
 * method's point; FreeZer's interval midpoint, as the DProf paper does for Table 2):
 * <ul>
 * <li><b>fast sends</b> (DProf Table 2) = violations of the clock condition with latency
 * (Becker Eq. 2): a receive closer to its send than the minimum latency {@code λ};</li>
 * <li><b>reversed messages</b> (Becker Fig. 5): a receive before its send;</li>
 * <li><b>inversions</b> of causally ordered events: reversed messages, and collective exits before
 * the last enter that happens before them by the instance's flavour (Becker §4.1,
 * {@link CollectiveMatcher}: for a broadcast the root's enter, for a reduce every enter before the
 * root's exit, for a scan the enters of the ranks up to the exit's);</li>
 * <li>with simulated clocks, the <b>error against the truth</b>: mean, p99 and max of
 * {@code |t − truth|}, p99 from a histogram of 1% buckets (rounded up).</li>
 * </ul>
 */
public final class SyncQuality {
    /** The figures of one method. */
    public record Figures(String method, long messages, long fastSends, double fastSendsPercent, long reversed,
                          long barrierExits, long barrierInversions, long inversions, Double errorMeanNs,
                          Double errorP99Ns, Double errorMaxNs) {
    }

    private record Sent(double t) {
    }

    private SyncQuality() {
    }

    /** The minimum latency to check against: the true one when the run has truth, else FreeZer's proven floor. */
    public static long minimumLatencyTicks(Profile freezer) throws ProfileException {
        ProfileInfo info = freezer.info();
        MessageMatcher<long[]> matcher = new MessageMatcher<>(info);
        long min = Long.MAX_VALUE;
        try (ProfileEventsReader events = freezer.events()) {
            ProfileEvent e = new ProfileEvent();
            while (events.next(e)) {
                switch (e.kind) {
                    case SEND -> matcher.send(e, new long[] {e.hi, e.truth});
                    case RECEIVE -> {
                        long[] s = matcher.receive(e);
                        if (s != null) {
                            min = Math.min(min, info.truth() ? e.truth - s[1] : Math.max(0, e.lo - s[0]));
                        }
                    }
                    default -> {
                    }
                }
            }
        } catch (IOException | FormatException e) {
            throw new ProfileException(freezer.dir() + ": " + e.getMessage());
        }
        return min == Long.MAX_VALUE ? 0 : min;
    }

    public static Figures measure(Profile profile, String method, long minimumLatencyTicks) throws ProfileException {
        ProfileInfo info = profile.info();
        MessageMatcher<Sent> matcher = new MessageMatcher<>(info);
        CollectiveMatcher<Double> collectives = new CollectiveMatcher<>();
        long messages = 0;
        long fast = 0;
        long reversed = 0;
        long exits = 0;
        long barrierInversions = 0;
        ErrorHistogram errors = new ErrorHistogram();
        double nsPerTick = 1e9 / info.referenceTickHz();
        try (ProfileEventsReader events = profile.events()) {
            ProfileEvent e = new ProfileEvent();
            while (events.next(e)) {
                double t = e.lo + (e.hi - e.lo) / 2.0;
                if (info.truth() && e.truth != ProfileEvent.NO_TRUTH) {
                    errors.add(Math.abs(t - e.truth) * nsPerTick);
                }
                switch (e.kind) {
                    case SEND -> matcher.send(e, new Sent(t));
                    case RECEIVE -> {
                        Sent s = matcher.receive(e);
                        if (s != null) {
                            messages++;
                            fast += t - s.t < minimumLatencyTicks ? 1 : 0;
                            reversed += t < s.t ? 1 : 0;
                        }
                    }
                    case BARRIER_ENTER -> collectives.enter(e, t);
                    case BARRIER_EXIT -> {
                        List<Double> enters = collectives.exit(e);
                        if (!enters.isEmpty()) {
                            exits++;
                            double last = enters.stream().mapToDouble(Double::doubleValue).max().getAsDouble();
                            barrierInversions += t < last ? 1 : 0;
                        }
                    }
                    default -> {
                    }
                }
            }
        } catch (IOException | FormatException e) {
            throw new ProfileException(profile.dir() + ": " + e.getMessage());
        }
        boolean truth = errors.count > 0;
        return new Figures(method, messages, fast, messages == 0 ? 0 : 100.0 * fast / messages, reversed, exits,
                barrierInversions, reversed + barrierInversions, truth ? errors.sum / errors.count : null,
                truth ? errors.quantile(0.99) : null, truth ? errors.max : null);
    }

    /** Errors in ns, in buckets 1% wide (bucket 0 below 1 ns). */
    private static final class ErrorHistogram {
        private static final double GROWTH = Math.log(1.01);
        private final long[] buckets = new long[4096];
        long count;
        double sum;
        double max;

        void add(double ns) {
            count++;
            sum += ns;
            max = Math.max(max, ns);
            int b = ns < 1 ? 0 : Math.min(buckets.length - 1, 1 + (int) (Math.log(ns) / GROWTH));
            buckets[b]++;
        }

        double quantile(double q) {
            long rank = (long) Math.ceil(q * count);
            long seen = 0;
            for (int b = 0; b < buckets.length; b++) {
                seen += buckets[b];
                if (seen >= rank) {
                    return Math.min(max, b == 0 ? 1 : Math.exp(b * GROWTH));
                }
            }
            return max;
        }
    }
}
