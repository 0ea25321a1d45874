package dev.dprof.cli;

import dev.dprof.calibrator.estimate.CalibrationException;
import dev.dprof.calibrator.estimate.CalibrationReport;
import dev.dprof.calibrator.estimate.CalibrationSet;
import dev.dprof.calibrator.estimate.DriftModel;
import dev.dprof.calibrator.estimate.Quality;
import dev.dprof.calibrator.estimate.TickConverter;
import dev.dprof.clock.SimulatedClock;
import dev.dprof.format.calibration.DomainCalibration;
import dev.dprof.format.calibration.Zero;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The verdict of a calibration test bed: every test tick of every non-reference machine is
 * converted with the calibration exactly as the consolidator would ({@link CalibrationSet},
 * {@link TickConverter#convertSorted}) and its interval checked against the truth, the
 * reference's simulated reading of the same real moment. Besides containment it measures what
 * the bounds cost: interval widths against the tightest round trip, and the frequency bound
 * against its floor {@code 2·minRtt/span} (two zeros of the best width at the ends of the run).
 *
 * <p>Widths and round trips are shown in ns at each domain's nominal rate ({@code rate × tsc-hz}
 * of its simulated clock): intervals in the reference's, zero widths in the node's.
 */
final class TestbedCheck {
    /** At most this many uncontained ticks are described; any one of them is a soundness bug. */
    private static final int MAX_EXAMPLES = 5;
    static final String TICKS_SUFFIX = ".ticks";

    private TestbedCheck() {
    }

    /** One non-reference domain's figures. */
    record DomainRow(String machine, String domain, String quality, int zeros, double minRttNs,
                     double medianZeroWidthNs, double firstZeroWidthNs, double lastZeroWidthNs, double spanSec, double freqWidthPpm, double floorPpm, long ticks,
                     long checked, long contained, long unbounded, double medianWidthNs, double p99WidthNs,
                     double maxWidthNs, double worstMissNs, long outsideSpan, String contradiction, String fallback) {
    }

    /** The run's figures (see {@code docs/CALIBRATION.md}, "Test bed"). */
    record Result(String reference, String assumption, int domains, int checkedDomains, long checked,
                  long contained, long unbounded, double medianZeroWidthNs, double medianWidthNs, double p99WidthNs,
                  double maxWidthNs, double minRttNs, double spanSec, double freqWidthPpmMax, double floorPpm,
                  long rejectedPackets, long stalePackets, String quality, List<DomainRow> rows, List<String> examples) {
        /** Every tick with a finite bound that misses the truth, whatever its domain's quality: must be 0. */
        long missed() {
            return checked - contained;
        }

        /** Test ticks outside their domain's calibrated span (before the first zero or after the last). */
        long outsideSpan() {
            return rows.stream().mapToLong(DomainRow::outsideSpan).sum();
        }

        /** How far the truth lay outside its bound at worst, in ns; 0 when everything is contained. */
        double worstMissNs() {
            return rows.stream().mapToDouble(DomainRow::worstMissNs).max().orElse(0);
        }

        /** The widest domain's frequency bound over the floor of the best round trip and shortest span of any. */
        double freqOverFloor() {
            return freqWidthPpmMax / floorPpm;
        }

        /** Each domain's frequency bound over its own floor (its own best round trip and span), the worst of them. */
        double freqOverOwnFloorMax() {
            return rows.stream().filter(d -> d.floorPpm() > 0 && !Double.isNaN(d.freqWidthPpm()))
                    .mapToDouble(d -> d.freqWidthPpm() / d.floorPpm()).max().orElse(Double.NaN);
        }

        double widthOverMinRtt() {
            return medianWidthNs / minRttNs;
        }
    }

    /**
     * Checks a run folder of {@code dprof testbed calibrate}: {@code cal/*.cal},
     * {@code ticks/<machine>.ticks} and {@code counters/<machine>.counters}.
     */
    static Result ofFolder(Path dir, DriftModel drift, double outsideSpanS) throws CliException {
        List<Path> ticks = list(dir.resolve("ticks"), TICKS_SUFFIX);
        if (ticks.isEmpty()) {
            throw new CliException(dir.resolve("ticks") + ": no test ticks (*" + TICKS_SUFFIX + ")");
        }
        Map<String, Long> counts = new HashMap<>();
        try {
            for (Path file : list(dir.resolve("counters"), ".counters")) {
                TestbedCounters.read(file).forEach((k, v) -> counts.merge(k, v, Long::sum));
            }
        } catch (IOException e) {
            throw new CliException("cannot read the counters in " + dir + " (" + e.getMessage() + ")");
        }
        return run(dir.resolve("cal"), ticks, drift, counts.getOrDefault("rejected", 0L),
                counts.getOrDefault("stale", 0L), outsideSpanS);
    }

    private static List<Path> list(Path folder, String suffix) throws CliException {
        if (!Files.isDirectory(folder)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(folder)) {
            return files.filter(f -> f.getFileName().toString().endsWith(suffix)).sorted().toList();
        } catch (IOException e) {
            throw new CliException("cannot list " + folder + " (" + e.getMessage() + ")");
        }
    }

    /**
     * Checks every tick file (named {@code <machine>.ticks}) against the calibration in {@code calDir}.
     *
     * @param rejected the rejected-packet counters summed over the serve and the joins
     * @param stale    the joins' stale replies (late or duplicated), summed
     * @param outsideSpanS test ticks are added up to this many seconds before each join's first
     *                 zero and after its last ({@link #outsideSpan}), 0 for none
     */
    static Result run(Path calDir, List<Path> tickFiles, DriftModel drift, long rejected, long stale,
                      double outsideSpanS) throws CliException {
        CalibrationSet set;
        try {
            set = CalibrationSet.load(List.of(calDir), drift);
        } catch (CalibrationException e) {
            throw new CliException(e.getMessage());
        }
        DomainCalibration ref = set.domains().stream().filter(DomainCalibration::isReference).findFirst().orElseThrow();
        SimulatedClock truth = SimulatedClock.parse(ref.simulatedClock()
                .orElseThrow(() -> new CliException("the reference domain is not simulated: no truth to check against")));
        Map<String, CalibrationReport.Domain> reports = new HashMap<>();
        CalibrationReport.of(set).forEach(d -> reports.put(d.domain(), d));

        List<DomainRow> rows = new ArrayList<>();
        List<String> examples = new ArrayList<>();
        List<long[]> intervalWidths = new ArrayList<>();
        List<double[]> zeroWidths = new ArrayList<>();
        Quality worst = Quality.REFERENCE;
        for (Path file : tickFiles) {
            Checked c = check(file, set, truth, reports, examples, outsideSpanS);
            rows.add(c.row);
            intervalWidths.add(c.intervalWidths);
            zeroWidths.add(c.zeroWidthsNs);
            worst = c.quality.ordinal() > worst.ordinal() ? c.quality : worst;
        }
        double refHz = nominalHz(truth);
        long[] widths = intervalWidths.stream().flatMapToLong(Arrays::stream).sorted().toArray();
        double[] zw = zeroWidths.stream().flatMapToDouble(Arrays::stream).sorted().toArray();
        double minRtt = rows.stream().mapToDouble(DomainRow::minRttNs).filter(x -> !Double.isNaN(x)).min()
                .orElse(Double.NaN);
        double span = rows.stream().mapToDouble(DomainRow::spanSec).filter(x -> !Double.isNaN(x)).min()
                .orElse(Double.NaN);
        double freq = rows.stream().mapToDouble(DomainRow::freqWidthPpm).filter(x -> !Double.isNaN(x)).max()
                .orElse(Double.NaN);
        return new Result(set.reference(), set.drift().describe(), set.domains().size(),
                (int) rows.stream().filter(r -> r.checked() > 0).count(), widths.length,
                rows.stream().mapToLong(DomainRow::contained).sum(), rows.stream().mapToLong(DomainRow::unbounded).sum(),
                zw.length == 0 ? Double.NaN : zw[zw.length / 2], quantile(widths, 0.5) * 1e9 / refHz,
                quantile(widths, 0.99) * 1e9 / refHz, quantile(widths, 1) * 1e9 / refHz, minRtt, span, freq,
                floorPpm(minRtt, span), rejected, stale, worst.name(), rows, examples);
    }

    /** One join's check: its row, its sorted interval widths (reference ticks), its zero widths (ns). */
    private record Checked(DomainRow row, long[] intervalWidths, double[] zeroWidthsNs, Quality quality) {
    }

    private static Checked check(Path file, CalibrationSet set, SimulatedClock truth,
                                 Map<String, CalibrationReport.Domain> reports, List<String> examples,
                                 double outsideSpanS) throws CliException {
        TestbedTicks.Recorded recorded;
        try {
            recorded = TestbedTicks.read(file);
        } catch (IOException e) {
            throw new CliException("cannot read the test ticks " + file + " (" + e.getMessage() + ")");
        }
        DomainCalibration d = set.domains().stream().filter(c -> c.domainId().equals(recorded.domainId())).findFirst()
                .orElseThrow(() -> new CliException(file + ": domain " + recorded.domainId() + " has no calibration file"));
        TestbedTicks.Recorded ticks = outsideSpan(recorded, d, outsideSpanS);
        long spanFrom = d.zeros().stream().mapToLong(Zero::k1).min().orElse(Long.MIN_VALUE);
        long spanTo = d.zeros().stream().mapToLong(Zero::k2).max().orElse(Long.MAX_VALUE);
        long outside = Arrays.stream(ticks.ticks()).filter(k -> k < spanFrom || k > spanTo).count();
        int n = ticks.size();
        long[] lo = new long[n];
        long[] hi = new long[n];
        long[] width = new long[n];
        int checked = 0;
        long contained = 0;
        long worstMiss = 0;
        if (!d.zeros().isEmpty() && n > 0) {
            try {
                set.converter(d.domainId()).convertSorted(ticks.ticks(), n, lo, hi);
            } catch (CalibrationException e) {
                throw new CliException(e.getMessage());
            }
            for (int i = 0; i < n; i++) {
                if (lo[i] == Long.MIN_VALUE || hi[i] == Long.MAX_VALUE) {
                    continue; // a stretch that contradicts the assumption: no bound, not checked
                }
                long t = truth.apply(ticks.reals()[i]);
                if (lo[i] <= t && t <= hi[i]) {
                    contained++;
                } else {
                    worstMiss = Math.max(worstMiss, t < lo[i] ? lo[i] - t : t - hi[i]);
                    if (examples.size() < MAX_EXAMPLES) {
                        examples.add(String.format(Locale.ROOT, "%s: tick %d (real %d) -> [%d, %d], truth %d",
                                machine(file), ticks.ticks()[i], ticks.reals()[i], lo[i], hi[i], t));
                    }
                }
                width[checked++] = hi[i] - lo[i];
            }
        }
        long[] w = Arrays.copyOf(width, checked);
        Arrays.sort(w);
        double hz = nominalHz(d);
        double refHz = nominalHz(truth);
        double[] zeros = d.zeros().stream().mapToDouble(z -> z.widthTicks() * 1e9 / hz).sorted().toArray();
        double minRtt = zeros.length == 0 ? Double.NaN : zeros[0];
        double span = d.zeros().size() < 2 ? Double.NaN : span(d) / hz;
        Quality q = set.quality(d.domainId());
        DomainRow row = new DomainRow(machine(file), d.domainId(), q.name(), zeros.length, minRtt,
                zeros.length == 0 ? Double.NaN : zeros[zeros.length / 2], endWidth(d, true) * 1e9 / hz,
                endWidth(d, false) * 1e9 / hz, span, reports.get(d.domainId()).frequencyWidthPpm(),
                floorPpm(minRtt, span), n, checked, contained, n - checked, quantile(w, 0.5) * 1e9 / refHz,
                quantile(w, 0.99) * 1e9 / refHz, quantile(w, 1) * 1e9 / refHz, worstMiss * 1e9 / refHz, outside,
                reports.get(d.domainId()).contradiction(), reports.get(d.domainId()).fallback());
        return new Checked(row, w, zeros, q);
    }

    /** Synthetic test ticks per side of the span with {@code --outside-span-s}. */
    private static final int OUTSIDE_TICKS_PER_SIDE = 10_000;

    /**
     * The recorded ticks with test ticks added up to {@code seconds} before the domain's first
     * zero and after its last, evenly spaced. A simulated clock is a function of the real tick
     * alone ({@link SimulatedClock#apply}), so {@code (sim(t), t)} computed here is exactly what
     * the join would have recorded at real moment {@code t}; the moment of a zero's tick is found
     * by inverting the clock's linear part (its drift moves it by at most the wander's phase, far
     * below a test tick's spacing).
     */
    static TestbedTicks.Recorded outsideSpan(TestbedTicks.Recorded recorded, DomainCalibration d, double seconds) {
        if (!(seconds > 0) || d.zeros().isEmpty() || d.simulatedClock().isEmpty()) {
            return recorded;
        }
        SimulatedClock clock = SimulatedClock.parse(d.simulatedClock().get());
        long first = d.zeros().stream().mapToLong(Zero::k1).min().orElseThrow();
        long last = d.zeros().stream().mapToLong(Zero::k2).max().orElseThrow();
        double realFirst = ((double) first - clock.offset()) / clock.rate();
        double realLast = ((double) last - clock.offset()) / clock.rate();
        double step = seconds * clock.tscHz() / OUTSIDE_TICKS_PER_SIDE;
        int n = recorded.size();
        long[] ticks = new long[n + 2 * OUTSIDE_TICKS_PER_SIDE];
        long[] reals = new long[ticks.length];
        int k = 0;
        for (int i = OUTSIDE_TICKS_PER_SIDE; i >= 1; i--) {
            reals[k] = (long) Math.floor(realFirst - i * step);
            ticks[k] = clock.apply(reals[k]);
            k++;
        }
        System.arraycopy(recorded.ticks(), 0, ticks, k, n);
        System.arraycopy(recorded.reals(), 0, reals, k, n);
        k += n;
        for (int i = 1; i <= OUTSIDE_TICKS_PER_SIDE; i++) {
            reals[k] = (long) Math.ceil(realLast + i * step);
            ticks[k] = clock.apply(reals[k]);
            k++;
        }
        return new TestbedTicks.Recorded(recorded.domainId(), ticks, reals);
    }

    /** {@code 2·minRtt/span} in ppm: the frequency bound of two best-width zeros at the ends of the span. */
    private static double floorPpm(double minRttNs, double spanSec) {
        return 2 * minRttNs / (spanSec * 1e9) * 1e6;
    }

    private static String machine(Path tickFile) {
        String name = tickFile.getFileName().toString();
        return name.substring(0, name.length() - TICKS_SUFFIX.length());
    }

    /** The domain's nominal rate: {@code rate × tsc-hz} of its simulated clock, else as its file says. */
    private static double nominalHz(DomainCalibration d) {
        return d.simulatedClock().map(SimulatedClock::parse).map(TestbedCheck::nominalHz).orElse(d.nominalTickHz());
    }

    private static double nominalHz(SimulatedClock clock) {
        return clock.rate() * clock.tscHz();
    }

    /**
     * The width of the first or last zero, in node ticks: the mean-frequency bound is about
     * {@code (first + last)/span}, so these two say why it is as wide as it is.
     */
    private static double endWidth(DomainCalibration d, boolean first) {
        Comparator<Zero> byK1 = Comparator.comparingLong(Zero::k1);
        return d.zeros().stream().min(first ? byK1 : byK1.reversed()).map(z -> (double) z.widthTicks())
                .orElse(Double.NaN);
    }

    /** Node ticks from the first zero's {@code k1} to the last zero's {@code k2}. */
    private static long span(DomainCalibration d) {
        long first = d.zeros().stream().mapToLong(Zero::k1).min().orElse(0);
        long last = d.zeros().stream().mapToLong(Zero::k2).max().orElse(0);
        return last - first;
    }

    /** The q-quantile of sorted values (nearest rank); NaN when there are none. */
    private static double quantile(long[] sorted, double q) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int rank = (int) Math.ceil(q * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }
}
