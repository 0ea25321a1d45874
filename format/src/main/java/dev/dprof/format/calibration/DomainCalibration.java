package dev.dprof.format.calibration;

import java.util.List;
import java.util.Optional;

/**
 * Everything one calibration file says about a clock domain: who its parent is (none for the
 * reference) and the zeros measured against that parent.
 *
 * @param domainId       the domain, named as {@link dev.dprof.clock.ClockDomain} names it
 * @param parentDomainId the domain the zeros are measured against; empty for the reference
 * @param nominalTickHz  the domain's tick rate, for display only
 * @param simulatedClock the simulated clock's spec when simulated, else empty
 * @param complete       whether the writer ended normally (an interrupted file is still valid)
 */
public record DomainCalibration(String domainId, Optional<String> parentDomainId, String host, String clockSource,
                                double nominalTickHz, Optional<String> simulatedClock, List<Zero> zeros,
                                boolean complete) {

    public boolean isReference() {
        return parentDomainId.isEmpty();
    }
}
