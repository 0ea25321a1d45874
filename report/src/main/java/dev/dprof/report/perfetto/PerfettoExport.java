package dev.dprof.report.perfetto;

import dev.dprof.consolidator.analysis.messages.HandoffEdges;
import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.profile.ProfileException;
import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.format.FormatException;
import dev.dprof.format.profile.ProfileEvent;
import dev.dprof.format.profile.ProfileEventsReader;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A consolidated profile as a Perfetto trace: the protobuf {@code Trace} of TrackEvents that
 * ui.perfetto.dev and Perfetto's trace processor open (docs/FORMAT.md, "Perfetto trace"). One
 * track per thread under its process's track, regions as slices drawn at the midpoints of their
 * bounds with the bounds as arguments, other events as instants, a flow from each matched send to
 * its receive and from each handoff's put to each of its takes ({@link TrackEventWriter}).
 *
 * <p>The export streams: the events are read in profile order and each packet is written as it is
 * made. Memory is the threads' open regions and the messages in flight, whatever the profile's
 * length, and the profile's handoff edges ({@link HandoffEdges}). A profile with more events than the slice budget is read twice: first to find the
 * shortest slice duration that keeps at most the budget of slices ({@link SliceDurations}), then
 * to write.
 */
public final class PerfettoExport {
    /**
     * Slices kept by {@link #write(Profile, Path)}. The Perfetto UI loads a trace into a trace
     * processor inside the browser; a few million slices, each with its arguments, stay
     * comfortably within its memory, tens of millions do not.
     */
    public static final long DEFAULT_SLICE_BUDGET = 2_000_000;

    /**
     * What was written.
     *
     * @param packets trace packets in the file
     * @param slices  slices written (a {@code SLICE_BEGIN} and {@code SLICE_END} each)
     * @param flows   flows written, each from a send to its matched receive
     * @param events  events read from the profile
     * @param bytes   size of the file
     */
    public record Summary(long packets, long slices, long flows, long events, long bytes) {
    }

    private interface EventSink {
        void accept(ProfileEvent e, ThreadTrack track) throws IOException;
    }

    private PerfettoExport() {
    }

    /** Streams the profile into a Perfetto protobuf trace file; bounded memory whatever the profile's length. */
    public static Summary write(Profile profile, Path out) throws IOException, ProfileException {
        return write(profile, out, DEFAULT_SLICE_BUDGET);
    }

    /**
     * As {@link #write(Profile, Path)}, keeping at most {@code sliceBudget} slices (plus those that
     * hold a written instant): the longest ones. Instants and flows are always all written.
     */
    public static Summary write(Profile profile, Path out, long sliceBudget) throws IOException, ProfileException {
        ProfileInfo info = profile.info();
        TraceClock clock = new TraceClock(firstLo(profile), info.referenceTickHz());
        long minSliceNanos = info.events() <= sliceBudget ? 0 : measure(profile, clock).threshold(sliceBudget);
        ThreadTrack[] tracks = ThreadTrack.of(info);
        long events;
        long packetCount;
        TrackEventWriter writer;
        try (PacketWriter packets = new PacketWriter(new BufferedOutputStream(Files.newOutputStream(out), 1 << 16))) {
            writer = new TrackEventWriter(info, clock, minSliceNanos, tracks, packets, HandoffEdges.of(profile));
            writer.describeTracks();
            events = forEachEvent(profile, tracks, writer::accept);
            writer.finish();
            packetCount = packets.packets();
        }
        return new Summary(packetCount, writer.slices(), writer.flows(), events, Files.size(out));
    }

    /** The first pass: every slice's duration, paired and timed exactly as the writer will. */
    private static SliceDurations measure(Profile profile, TraceClock clock) throws IOException, ProfileException {
        SliceDurations durations = new SliceDurations();
        ThreadTrack[] tracks = ThreadTrack.of(profile.info());
        EventTimes times = new EventTimes(profile.info(), clock, HandoffEdges.of(profile));
        forEachEvent(profile, tracks, (e, t) -> {
            long nanos = times.place(e, t);
            if (OpenRegions.opens(e.kind)) {
                t.regions.enter(e, nanos);
            } else if (OpenRegions.closes(e.kind)) {
                t.regions.exit(e, nanos, (i, end, exit) -> durations.add(end - t.regions.beginNanos(i)));
            }
        });
        for (ThreadTrack t : tracks) {
            if (t != null) {
                t.regions.closeAll(t.lastNanos(), (i, end, exit) -> durations.add(end - t.regions.beginNanos(i)));
            }
        }
        return durations;
    }

    /** The lower bound of the profile's first event: the trace's time 0. */
    private static long firstLo(Profile profile) throws IOException, ProfileException {
        try (ProfileEventsReader reader = profile.events()) {
            ProfileEvent e = new ProfileEvent();
            return next(profile, reader, e) ? e.lo : 0;
        }
    }

    /** Streams the events to {@code sink} with their thread's track; returns how many. */
    private static long forEachEvent(Profile profile, ThreadTrack[] tracks, EventSink sink)
            throws IOException, ProfileException {
        int regions = profile.info().regions().size();
        long n = 0;
        try (ProfileEventsReader reader = profile.events()) {
            ProfileEvent e = new ProfileEvent();
            while (next(profile, reader, e)) {
                if (e.stream >= tracks.length || tracks[e.stream] == null || e.region >= regions) {
                    throw new ProfileException(profile.dir().resolve(Profile.EVENTS) + ": event " + n + " names "
                            + (e.region >= regions ? "region " + e.region : "stream " + e.stream)
                            + ", which " + Profile.INFO + " does not list");
                }
                sink.accept(e, tracks[e.stream]);
                n++;
            }
        }
        return n;
    }

    /** Reads the next event; a damaged events file is the profile's problem, not the output's. */
    private static boolean next(Profile profile, ProfileEventsReader reader, ProfileEvent e) throws ProfileException {
        try {
            return reader.next(e);
        } catch (IOException | FormatException x) {
            throw new ProfileException(profile.dir().resolve(Profile.EVENTS) + ": " + x.getMessage());
        }
    }
}
