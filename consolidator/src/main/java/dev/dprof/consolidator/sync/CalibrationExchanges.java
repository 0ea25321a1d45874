package dev.dprof.consolidator.sync;

import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.profile.ProfileException;
import dev.dprof.format.calibration.CalibrationFile;
import dev.dprof.format.calibration.CalibrationFormatException;
import dev.dprof.format.calibration.DomainCalibration;
import dev.dprof.format.calibration.Zero;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The calibration exchanges a profile was consolidated with (its {@code calibration/} folder, the
 * {@code .cal} files byte for byte), by clock domain: each domain's parent and its round trips
 * {@code k1 < a < k2} against it (docs/CALIBRATION.md). A round trip is a message each way: the ping
 * up, {@code (k1, a)}, sent on the node's clock and received on the parent's, and the pong down,
 * {@code (a, k2)} — the exchanges Duda's regression and convex hull and the controlled logical
 * clock's offset measurements rest on in the papers, and the ones FreeZer uses.
 */
final class CalibrationExchanges {
    private final Map<String, Optional<String>> parents;
    private final Map<String, List<Zero>> zeros;
    private final String reference;

    private CalibrationExchanges(Map<String, Optional<String>> parents, Map<String, List<Zero>> zeros, String reference) {
        this.parents = parents;
        this.zeros = zeros;
        this.reference = reference;
    }

    /** The profile's exchanges; empty for a profile without a {@code calibration/} folder (written before it existed). */
    static Optional<CalibrationExchanges> of(Profile profile) throws ProfileException {
        Path dir = profile.dir().resolve(Profile.CALIBRATION);
        if (!Files.isDirectory(dir)) {
            return Optional.empty();
        }
        List<Path> files;
        try (Stream<Path> list = Files.list(dir)) {
            files = list.filter(f -> f.toString().endsWith(CalibrationFile.SUFFIX)).sorted().toList();
        } catch (IOException e) {
            throw new ProfileException(dir + ": cannot list (" + e.getMessage() + ")");
        }
        List<DomainCalibration> read = new ArrayList<>();
        for (Path f : files) {
            try {
                read.add(CalibrationFile.read(f));
            } catch (IOException e) {
                throw new ProfileException(f + ": cannot read (" + e.getMessage() + ")");
            } catch (CalibrationFormatException e) {
                throw new ProfileException(f + ": " + e.getMessage());
            }
        }
        return of(read, dir.toString());
    }

    /** The given files pooled by domain (every process of a domain writes its own); empty without a reference. */
    static Optional<CalibrationExchanges> of(List<DomainCalibration> files, String source) throws ProfileException {
        Map<String, Optional<String>> parents = new LinkedHashMap<>();
        Map<String, List<Zero>> zeros = new LinkedHashMap<>();
        String reference = null;
        for (DomainCalibration d : files) {
            Optional<String> known = parents.putIfAbsent(d.domainId(), d.parentDomainId());
            if (known != null && !known.equals(d.parentDomainId())) {
                throw new ProfileException(source + ": domain " + d.domainId() + " has two parents");
            }
            zeros.computeIfAbsent(d.domainId(), k -> new ArrayList<>()).addAll(d.zeros());
            if (d.isReference()) {
                reference = d.domainId();
            }
        }
        return reference == null ? Optional.empty() : Optional.of(new CalibrationExchanges(parents, zeros, reference));
    }

    String reference() {
        return reference;
    }

    /** Every domain with a file, the reference included. */
    List<String> domains() {
        return List.copyOf(parents.keySet());
    }

    /** The domain's parent; empty for the reference and for a domain without a file. */
    Optional<String> parent(String domain) {
        return parents.getOrDefault(domain, Optional.empty());
    }

    /** The domain's round trips against its parent (none for the reference). */
    List<Zero> zeros(String domain) {
        return zeros.getOrDefault(domain, List.of());
    }
}
