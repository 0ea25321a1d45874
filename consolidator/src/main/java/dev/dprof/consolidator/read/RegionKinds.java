package dev.dprof.consolidator.read;

import dev.dprof.format.RegionInfo;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Regions are one by name across processes, but only of one kind: a name that one process gave a
 * {@code plain} region and another a {@code send} region (a YAML region named {@code tcp.write} beside
 * the agent's own TCP writes, before the agent refused such names) would merge into one region of the
 * first kind. Such a region is kept apart under {@code name [kind]}, and the conflict is a problem,
 * named once, with both processes and kinds.
 */
public final class RegionKinds {
    private final Map<String, First> first = new HashMap<>();
    private final Set<String> reported = new HashSet<>();
    private final List<String> problems;

    private record First(String kind, String process, String location) {
    }

    /** @param problems where a conflict is reported */
    public RegionKinds(List<String> problems) {
        this.problems = problems;
    }

    /** The name under which {@code region} of {@code process} joins the other processes' regions. */
    public String mergedName(RegionInfo region, String process) {
        First seen = first.putIfAbsent(region.name(), new First(region.kind(), process, region.location()));
        if (seen == null || seen.kind.equals(region.kind())) {
            return region.name();
        }
        String apart = region.name() + " [" + region.kind() + "]";
        if (reported.add(apart)) {
            problems.add("region '" + region.name() + "' is kind " + seen.kind + " in " + seen.process + " ("
                    + seen.location + ") but kind " + region.kind() + " in " + process + " (" + region.location()
                    + "): not merged, the " + region.kind() + " region is '" + apart + "'");
        }
        return apart;
    }
}
