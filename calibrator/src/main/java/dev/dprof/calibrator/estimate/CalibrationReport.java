package dev.dprof.calibrator.estimate;

import dev.dprof.format.calibration.DomainCalibration;
import dev.dprof.format.calibration.Zero;
import java.util.ArrayList;
import java.util.List;
import org.apache.commons.numbers.fraction.BigFraction;

/** What a calibration establishes per domain, for people and for JSON. */
public final class CalibrationReport {
    private CalibrationReport() {
    }

    /**
     * One domain.
     *
     * @param frequencyLow  exact lower bound of the mean relative frequency, as {@code num/den}
     * @param frequencyHigh exact upper bound, as {@code num/den}
     * @param contradiction where the data contradict the assumption, in words, or null
     * @param fallback      what a contradicted domain falls back to, in words, or null
     * @param horizonSeconds how far outside its zeros a tick of the domain still gets a bound
     */
    public record Domain(String domain, String parent, String quality, String assumption, int zeros,
                         long medianZeroWidthTicks, double medianZeroWidthNs, String frequencyLow,
                         String frequencyHigh, double frequencyLowApprox, double frequencyHighApprox,
                         double frequencyWidthPpm, int stretches, int contradictedStretches,
                         boolean complete, String contradiction, String fallback, double horizonSeconds) {
    }

    public static List<Domain> of(CalibrationSet set) {
        List<Domain> out = new ArrayList<>();
        for (DomainCalibration d : set.domains()) {
            DomainConversion c = set.conversion(d.domainId()).orElseThrow();
            long[] widths = d.zeros().stream().mapToLong(Zero::widthTicks).sorted().toArray();
            long median = widths.length == 0 ? 0 : widths[widths.length / 2];
            BigFraction lo = c.meanFrequencyLow();
            BigFraction hi = c.meanFrequencyHigh();
            double ppm = lo == null ? Double.NaN
                    : hi.subtract(lo).doubleValue() / lo.add(hi).divide(2).doubleValue() * 1e6;
            out.add(new Domain(d.domainId(), d.parentDomainId().orElse("-"), set.quality(d.domainId()).name(),
                    set.drift().describe(), d.zeros().size(), median, median * 1e9 / d.nominalTickHz(),
                    lo == null ? "-" : lo.getNumerator() + "/" + lo.getDenominator(),
                    hi == null ? "-" : hi.getNumerator() + "/" + hi.getDenominator(),
                    lo == null ? Double.NaN : lo.doubleValue(), hi == null ? Double.NaN : hi.doubleValue(), ppm,
                    c.checkedStretches(), c.contradictedStretches().size(), d.complete(),
                    c.contradiction().orElse(null), c.fallback().orElse(null), DomainConversion.HORIZON_SECONDS));
        }
        return out;
    }
}
