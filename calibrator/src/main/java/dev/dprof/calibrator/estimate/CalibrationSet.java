package dev.dprof.calibrator.estimate;

import dev.dprof.format.calibration.CalibrationFile;
import dev.dprof.format.calibration.CalibrationFormatException;
import dev.dprof.format.calibration.DomainCalibration;
import dev.dprof.format.calibration.Zero;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.commons.numbers.fraction.BigFraction;

/**
 * Every calibrated domain of a run and how each converts to the reference: the calibration
 * files of all machines, read together (a domain measured by several processes pools their
 * zeros), checked for a single reference and a complete path from every domain to it.
 */
public final class CalibrationSet {
    private final Map<String, DomainCalibration> domains;
    private final Map<String, DomainConversion> conversions = new LinkedHashMap<>();
    private final String reference;
    private final DriftModel drift;
    /** Whether the conversions rest on the zeros alone. */
    private final boolean withoutExtraPoints;
    /** Per domain, why its counter is not one clock ({@link #withClockFaults}). */
    private final Map<String, String> clockFaults;
    private final Map<String, List<LinePoint>> extra;

    private CalibrationSet(Map<String, DomainCalibration> domains, String reference, DriftModel drift,
                           Map<String, List<LinePoint>> extra, Map<String, String> clockFaults) {
        this.domains = domains;
        this.reference = reference;
        this.drift = drift;
        this.extra = extra;
        this.clockFaults = clockFaults;
        this.withoutExtraPoints = extra.values().stream().allMatch(List::isEmpty);
        String referenceFault = clockFaults.get(reference);
        // The domains' conversions are independent of each other, and a consolidation waits for all of
        // them three times (the zeros, then each round of the message constraints): built side by side.
        List<DomainCalibration> all = List.copyOf(domains.values());
        DomainConversion[] built = new DomainConversion[all.size()];
        java.util.stream.IntStream.range(0, all.size()).parallel().forEach(i -> built[i] = DomainConversion.build(
                all.get(i), drift, extra.getOrDefault(all.get(i).domainId(), List.of())));
        for (int i = 0; i < all.size(); i++) {
            DomainCalibration d = all.get(i);
            DomainConversion c = built[i];
            String fault = clockFaults.get(d.domainId());
            if (fault == null && referenceFault != null && !d.isReference()) {
                fault = "its reference " + reference + " is not: " + referenceFault;
            }
            conversions.put(d.domainId(), fault == null ? c : c.withClockFault(fault));
        }
    }

    /** Reads every {@code *.cal} file under the folders (recursively). */
    public static CalibrationSet load(List<Path> folders, DriftModel drift) throws CalibrationException {
        List<DomainCalibration> files = new ArrayList<>();
        for (Path folder : folders) {
            if (!Files.isDirectory(folder)) {
                throw new CalibrationException(folder + ": no such calibration folder");
            }
            List<Path> found;
            try (Stream<Path> walk = Files.walk(folder)) {
                found = walk.filter(p -> p.toString().endsWith(CalibrationFile.SUFFIX)).sorted().toList();
            } catch (IOException e) {
                throw new CalibrationException(folder + ": cannot list (" + e.getMessage() + ")");
            }
            for (Path file : found) {
                try {
                    files.add(CalibrationFile.read(file));
                } catch (IOException e) {
                    throw new CalibrationException(file + ": cannot read (" + e.getMessage() + ")");
                } catch (CalibrationFormatException e) {
                    throw new CalibrationException(e.getMessage());
                }
            }
        }
        if (files.isEmpty()) {
            throw new CalibrationException(folders + ": no calibration files (*.cal)");
        }
        return of(files, drift);
    }

    /** Pools the given per-process calibrations by domain and checks the tree. */
    public static CalibrationSet of(Collection<DomainCalibration> files, DriftModel drift) throws CalibrationException {
        Map<String, DomainCalibration> domains = new LinkedHashMap<>();
        for (DomainCalibration f : files) {
            DomainCalibration known = domains.get(f.domainId());
            if (known == null) {
                domains.put(f.domainId(), f);
            } else if (!known.parentDomainId().equals(f.parentDomainId())) {
                throw new CalibrationException("domain " + f.domainId() + " has two parents: "
                        + known.parentDomainId().orElse("(reference)") + " and " + f.parentDomainId().orElse("(reference)"));
            } else {
                List<Zero> zeros = new ArrayList<>(known.zeros());
                zeros.addAll(f.zeros());
                domains.put(f.domainId(), new DomainCalibration(known.domainId(), known.parentDomainId(), known.host(),
                        known.clockSource(), known.nominalTickHz(), known.simulatedClock(), List.copyOf(zeros),
                        known.complete() && f.complete()));
            }
        }
        List<String> references = domains.values().stream().filter(DomainCalibration::isReference)
                .map(DomainCalibration::domainId).toList();
        if (references.size() != 1) {
            throw new CalibrationException(references.isEmpty() ? "no reference domain (no file written by 'calibrate serve')"
                    : "more than one reference domain: " + references);
        }
        for (DomainCalibration d : domains.values()) {
            Set<String> seen = new HashSet<>();
            for (DomainCalibration at = d; !at.isReference(); at = domains.get(at.parentDomainId().get())) {
                if (!seen.add(at.domainId())) {
                    throw new CalibrationException("domain " + d.domainId() + ": its parents form a cycle");
                }
                if (!domains.containsKey(at.parentDomainId().get())) {
                    throw new CalibrationException("domain " + at.domainId() + ": its parent "
                            + at.parentDomainId().get() + " has no calibration file");
                }
            }
        }
        return new CalibrationSet(domains, references.get(0), drift, Map.of(), Map.of());
    }

    /** The same calibration with extra points (matched messages) per domain, against its parent. */
    public CalibrationSet withPoints(Map<String, List<LinePoint>> extra) {
        if (withoutExtraPoints && extra.values().stream().allMatch(List::isEmpty)) {
            return this; // the same conversions: not built again
        }
        return new CalibrationSet(domains, reference, drift, extra, clockFaults);
    }

    /**
     * The same calibration where the given domains' counters are not one clock (the agents' clock
     * checks, format {@code ClockCheck}; docs/BOUNDS.md "The counter is checked"): each gets no bound
     * and quality {@link Quality#CONTRADICTED}, saying why. A fault of the reference takes every
     * domain's bounds, since every conversion ends on it. Domains not calibrated here are ignored.
     *
     * @param faults one line per domain id
     */
    public CalibrationSet withClockFaults(Map<String, String> faults) {
        Map<String, String> known = new LinkedHashMap<>();
        faults.forEach((domain, why) -> {
            if (domains.containsKey(domain)) {
                known.put(domain, why);
            }
        });
        return known.isEmpty() ? this : new CalibrationSet(domains, reference, drift, extra, known);
    }

    /** Why the domain's counter is not one clock, when its agent's check (or its reference's) said so. */
    public Optional<String> clockFault(String domainId) {
        DomainConversion c = conversions.get(domainId);
        if (c != null && c.clockFault().isPresent()) {
            return c.clockFault();
        }
        return Optional.ofNullable(clockFaults.get(domainId));
    }

    public String reference() {
        return reference;
    }

    public DriftModel drift() {
        return drift;
    }

    public Collection<DomainCalibration> domains() {
        return domains.values();
    }

    public Optional<DomainConversion> conversion(String domainId) {
        return Optional.ofNullable(conversions.get(domainId));
    }

    /** A converter of the domain's ticks to reference ticks. */
    public TickConverter converter(String domainId) throws CalibrationException {
        DomainCalibration d = domains.get(domainId);
        if (d == null) {
            throw new CalibrationException("domain " + domainId + " has no calibration (known: " + domains.keySet() + ")");
        }
        if (d.isReference() && clockFaults.containsKey(domainId)) {
            return TickConverter.withoutBounds();
        }
        List<DomainConversion> path = new ArrayList<>();
        for (DomainCalibration at = d; !at.isReference(); at = domains.get(at.parentDomainId().get())) {
            DomainConversion c = conversions.get(at.domainId());
            if (c.isEmpty()) {
                throw new CalibrationException("domain " + at.domainId() + " has no zeros: it cannot be converted");
            }
            path.add(c);
        }
        return new TickConverter(path);
    }

    /**
     * Bounds on the domain's rate in reference ticks per tick, along its path, valid for every
     * duration between the first and the last zero of each hop: the product of the per-hop
     * bounds (the derivative of a composition). {@code [1, 1]} for the reference; null where the
     * data contradict the assumption.
     */
    public BigFraction[] slopeBounds(String domainId) {
        return slopeBounds(domainId, Long.MAX_VALUE, Long.MIN_VALUE);
    }

    /**
     * The same, valid for every duration whose ends lie in {@code [from, to]} (this domain's
     * ticks) or between the zeros: each hop covers its calibrated span and the image of the range
     * below it, and widens its slopes by how far that reaches beyond its zeros
     * ({@link DomainConversion#slopeBounds(long, long)}). Null also when the range reaches beyond
     * a hop's horizon. An empty range ({@code from > to}) means the spans alone.
     */
    public BigFraction[] slopeBounds(String domainId, long from, long to) {
        if (domainId.equals(reference) && clockFaults.containsKey(domainId)) {
            return null;
        }
        BigFraction lo = BigFraction.of(1);
        BigFraction hi = BigFraction.of(1);
        long a = from;
        long b = to;
        for (DomainCalibration at = domains.get(domainId); at != null && !at.isReference();
             at = domains.get(at.parentDomainId().get())) {
            DomainConversion c = conversions.get(at.domainId());
            long first = Math.min(a, c.spanFrom());
            long last = Math.max(b, c.spanTo());
            BigFraction[] bounds = c.slopeBounds(first, last);
            if (bounds == null || last == Long.MAX_VALUE) {
                return null;
            }
            lo = lo.multiply(bounds[0]);
            hi = hi.multiply(bounds[1]);
            DomainConversion.Cursor cursor = c.cursor();
            a = cursor.lowerAt(first);
            b = cursor.upperAt(last + 1);
            if (a == Long.MIN_VALUE || b == Long.MAX_VALUE) {
                return null;
            }
        }
        return new BigFraction[] {lo, hi};
    }

    /** The worst quality along the domain's path to the reference. */
    public Quality quality(String domainId) {
        if (domainId.equals(reference) && clockFaults.containsKey(domainId)) {
            return Quality.CONTRADICTED;
        }
        Quality worst = Quality.REFERENCE;
        for (DomainCalibration at = domains.get(domainId); at != null && !at.isReference();
             at = domains.get(at.parentDomainId().get())) {
            Quality q = conversions.get(at.domainId()).quality();
            if (q.ordinal() > worst.ordinal()) {
                worst = q;
            }
        }
        return worst;
    }
}
