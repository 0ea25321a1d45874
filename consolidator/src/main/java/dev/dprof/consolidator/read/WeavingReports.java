package dev.dprof.consolidator.read;

import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.format.WeavingSummary;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the processes' agents said about the YAML's regions ({@link WeavingSummary}), put together for
 * {@code dprof stats} and {@code dprof consolidate}: each region that matched no method, with its reason
 * and nearest name, once for all the processes it matched nothing in; and the processes that cannot say.
 */
public final class WeavingReports {
    /** Said of a process without a weaving summary that was killed. */
    public static final String NOT_ENDED = "unknown (the process did not end normally)";
    /** Said of a process that ended normally without one: its agent predates the record. */
    public static final String NOT_RECORDED = "unknown (its agent did not record it)";

    private final Map<String, Entry> unmatched = new LinkedHashMap<>();
    private final List<String> unknown = new ArrayList<>();
    private int processes;

    private static final class Entry {
        final WeavingSummary.Region region;
        final List<String> processes = new ArrayList<>();

        Entry(WeavingSummary.Region region) {
            this.region = region;
        }
    }

    /**
     * One process's part.
     *
     * @param process the process as named in the output ({@code host-pid})
     * @param summary its weaving summary, or null when its queue has none
     * @param ended   whether it ended normally (has an end record)
     */
    public void add(String process, WeavingSummary summary, boolean ended) {
        processes++;
        if (summary == null) {
            unknown.add(process + ": which YAML regions matched is " + (ended ? NOT_RECORDED : NOT_ENDED));
            return;
        }
        for (WeavingSummary.Region r : summary.unmatched()) {
            unmatched.computeIfAbsent(r.describe(), k -> new Entry(r)).processes.add(process);
        }
    }

    /** The lines to print: one per unmatched region (with how many processes), then one per process that cannot say. */
    public List<String> lines() {
        return toInfo().lines();
    }

    /** The report as {@code profile.json} and {@code dprof stats --json} hold it. */
    public ProfileInfo.Weaving toInfo() {
        List<ProfileInfo.UnmatchedRegion> regions = new ArrayList<>();
        for (Entry e : unmatched.values()) {
            WeavingSummary.Region r = e.region;
            String line = r.describe() + " [" + e.processes.size() + " of " + processes
                    + (processes == 1 ? " process]" : " processes]");
            regions.add(new ProfileInfo.UnmatchedRegion(r.name(), r.location(), r.classPattern(), r.methodPattern(),
                    r.descriptor(), r.reason().name(), r.nearest(), r.detail(), line, List.copyOf(e.processes)));
        }
        return new ProfileInfo.Weaving(regions, unknown);
    }
}
