package dev.dprof.consolidator.synthetic;

import dev.dprof.consolidator.analysis.stats.ProfileStatistics;
import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.profile.ProfileException;
import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.format.EventKind;
import dev.dprof.format.profile.ProfileEvent;
import dev.dprof.format.profile.ProfileEventsWriter;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A hand-built consolidated profile: processes with exact slope bounds and probe costs, threads,
 * regions, and events written in the order given (the test's causal order) with
 * {@link ProfileEventsWriter} and {@link Profile#writeInfo}. The reference runs at 1 GHz, so a
 * reference tick is a nanosecond.
 */
public final class TinyProfile {
    private final Path dir;
    private final boolean truth;
    private final List<ProfileInfo.Process> processes = new ArrayList<>();
    private final List<ProfileInfo.Stream> streams = new ArrayList<>();
    private final List<ProfileInfo.Region> regions = new ArrayList<>();
    private final List<ProfileEvent> events = new ArrayList<>();
    private final List<java.util.Map<String, Long>> instances = new ArrayList<>();
    private ProfileInfo.Window window;

    public TinyProfile(Path dir, boolean truth) {
        this.dir = dir;
        this.truth = truth;
    }

    /** A process with rate bounds "num/den" (null: unbounded), a probe cost in ticks and a quality. */
    public int process(String slopeLow, String slopeHigh, double probeCostTicks, String quality) {
        int index = processes.size();
        instances.add(new java.util.TreeMap<>());
        processes.add(new ProfileInfo.Process(index, "host" + index, 100 + index, "tsc@boot" + index, quality, 2e9,
                probeCostTicks, null, 0, true, slopeLow, slopeHigh, Double.NaN, Double.NaN, null, null));
        return index;
    }

    public int process(String slopeLow, String slopeHigh, double probeCostTicks) {
        return process(slopeLow, slopeHigh, probeCostTicks, "BOUNDED");
    }

    /** The process fixed region {@code name}'s instance id at start (a rank-specific region). */
    public TinyProfile instance(int process, String name, long id) {
        instances.get(process).put(name, id);
        return this;
    }

    public int stream(int process) {
        int index = streams.size();
        streams.add(new ProfileInfo.Stream(index, process, 1000 + index, "t" + index));
        return index;
    }

    public int region(String name, String kind) {
        int index = regions.size();
        regions.add(new ProfileInfo.Region(index, name, kind));
        return index;
    }

    public int region(String name) {
        return region(name, "plain");
    }

    public TinyProfile window(long from, long to) {
        window = new ProfileInfo.Window(from, to);
        return this;
    }

    /** An event whose interval and truth do not matter (lo = hi = truth = 0): durations must not use them. */
    public TinyProfile at(int stream, EventKind kind, int region, long tick) {
        return event(stream, kind, region, tick, 0, 0, truth ? 0 : ProfileEvent.NO_TRUTH, 0, 0);
    }

    public TinyProfile event(int stream, EventKind kind, int region, long tick, long lo, long hi, long truthTick, long a, long b) {
        ProfileEvent e = new ProfileEvent();
        e.stream = stream;
        e.kind = kind;
        e.region = region;
        e.tick = tick;
        e.lo = lo;
        e.hi = hi;
        e.truth = truth ? truthTick : ProfileEvent.NO_TRUTH;
        e.a = a;
        e.b = b;
        events.add(e);
        return this;
    }

    public Profile write() throws IOException, ProfileException {
        try (ProfileEventsWriter w = new ProfileEventsWriter(dir.resolve(Profile.EVENTS), truth)) {
            for (ProfileEvent e : events) {
                w.write(e);
            }
        }
        Profile.writeInfo(dir, new ProfileInfo(ProfileInfo.FORMAT_VERSION, "freezer", "bounded:1 (test)", "ref", 1e9,
                window, truth, processes.stream().map(p -> new ProfileInfo.Process(p.index(), p.host(), p.pid(),
                        p.domain(), p.quality(), p.nominalTickHz(), p.probeCostTicks(), p.simulatedClock(),
                        p.lostEvents(), p.ended(), p.slopeLow(), p.slopeHigh(), p.slopeLowApprox(),
                        p.slopeHighApprox(), instances.get(p.index()), null)).toList(), streams, regions, new ProfileInfo.Messages(0, 0, 0, 0, 0, 0, 0),
                events.size(), 0, 0, List.of()));
        return Profile.open(dir);
    }

    public ProfileStatistics.Result statistics() throws IOException, ProfileException {
        return ProfileStatistics.compute(write());
    }
}
