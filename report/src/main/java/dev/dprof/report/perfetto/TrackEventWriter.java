package dev.dprof.report.perfetto;

import dev.dprof.consolidator.analysis.messages.HandoffEdges;
import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.format.CollectiveShape;
import dev.dprof.format.EventKind;
import dev.dprof.format.profile.ProfileEvent;
import dev.dprof.report.perfetto.TraceNames.Arg;
import dev.dprof.report.perfetto.proto.DebugAnnotation;
import dev.dprof.report.perfetto.proto.DebugAnnotationName;
import dev.dprof.report.perfetto.proto.EventName;
import dev.dprof.report.perfetto.proto.InternedData;
import dev.dprof.report.perfetto.proto.ProcessDescriptor;
import dev.dprof.report.perfetto.proto.ThreadDescriptor;
import dev.dprof.report.perfetto.proto.TracePacket;
import dev.dprof.report.perfetto.proto.TrackDescriptor;
import dev.dprof.report.perfetto.proto.TrackEvent;
import java.io.IOException;

/**
 * Writes a profile's events, in profile order, as Perfetto TrackEvents (track_event.proto; the
 * layout follows Perfetto's "Writing TrackEvent protos synthetically" reference):
 * <ul>
 * <li>a process track per process and, under it ({@code parent_uuid}), a thread track per thread,
 * each thread on a packet sequence of its own, so timestamps never go back within a sequence;</li>
 * <li>regions ({@code ENTER}/{@code EXIT}, barrier enter/exit: the wait) as slices, paired as
 * {@link OpenRegions} pairs them; the {@code SLICE_BEGIN} carries the enter's bound and payload,
 * the {@code SLICE_END} the exit's (Perfetto merges the two argument sets);</li>
 * <li>every other event as an instant with its bound and payload; a send is a flow's source, its
 * matching receive the flow's end, and so are a handoff's put and each of its takes ({@link EventTimes});
 * a started thread's first event ends its start's flow on an instant of its own when it is a
 * region's enter or exit;</li>
 * <li>the level of detail: a slice shorter than {@code minSliceNanos} is left out unless something
 * inside it is written, which {@code SLICE_BEGIN}s are therefore written lazily for.</li>
 * </ul>
 * Timestamps are the midpoints of the events' bounds, moved only to keep each thread's order and
 * flows forward ({@link EventTimes}). Memory: the open regions of each thread and the messages in
 * flight.
 */
final class TrackEventWriter {
    /** The sequence of the process tracks and the export's own track: nothing on it is interned. */
    static final int METADATA_SEQUENCE = 1;
    private static final long PROCESS_UUIDS = 1L << 32;
    private static final long THREAD_UUIDS = 2L << 32;
    private static final long EXPORT_TRACK_UUID = 3L << 32;
    private static final int NEEDS_STATE = TracePacket.SequenceFlags.SEQ_NEEDS_INCREMENTAL_STATE_VALUE;

    private final ProfileInfo info;
    private final TraceClock clock;
    private final EventTimes times;
    private final TraceNames names;
    private final PacketWriter out;
    private final long minSliceNanos;
    private final ThreadTrack[] tracks;
    private long slices;
    private long slicesLeftOut;
    private long flows;
    private long unpairedExits;

    TrackEventWriter(ProfileInfo info, TraceClock clock, long minSliceNanos, ThreadTrack[] tracks, PacketWriter out,
                     HandoffEdges handoffs) {
        this.info = info;
        this.clock = clock;
        this.names = new TraceNames(info);
        this.out = out;
        this.minSliceNanos = minSliceNanos;
        this.tracks = tracks;
        this.times = new EventTimes(info, clock, handoffs);
    }

    static int sequenceOf(ProfileInfo.Stream s) {
        return METADATA_SEQUENCE + 1 + s.index();
    }

    /**
     * The track descriptors, before any event: process tracks and the export's track on the
     * metadata sequence; each thread's on its own sequence, as that sequence's first packet, which
     * clears its incremental state and interns the annotation names.
     */
    void describeTracks() throws IOException {
        for (ProfileInfo.Process p : info.processes()) {
            out.write(TracePacket.newBuilder().setTimestamp(0).setTrustedPacketSequenceId(METADATA_SEQUENCE)
                    .setTrackDescriptor(TrackDescriptor.newBuilder().setUuid(PROCESS_UUIDS + p.index())
                            .setProcess(ProcessDescriptor.newBuilder().setPid(pid(p.index()))
                                    .setProcessName(p.host() + " pid " + p.pid()))).build());
        }
        out.write(TracePacket.newBuilder().setTimestamp(0).setTrustedPacketSequenceId(METADATA_SEQUENCE)
                .setTrackDescriptor(TrackDescriptor.newBuilder().setUuid(EXPORT_TRACK_UUID).setName("dprof export")).build());
        InternedData.Builder argNames = InternedData.newBuilder();
        for (Arg a : Arg.values()) {
            argNames.addDebugAnnotationNames(DebugAnnotationName.newBuilder().setIid(a.iid()).setName(a.text));
        }
        for (ThreadTrack t : tracks) {
            if (t == null) {
                continue;
            }
            ProfileInfo.Stream s = t.stream;
            out.write(TracePacket.newBuilder().setTimestamp(0).setTrustedPacketSequenceId(sequenceOf(s))
                    .setSequenceFlags(TracePacket.SequenceFlags.SEQ_INCREMENTAL_STATE_CLEARED_VALUE)
                    .setInternedData(argNames)
                    .setTrackDescriptor(TrackDescriptor.newBuilder().setUuid(THREAD_UUIDS + s.index())
                            .setParentUuid(PROCESS_UUIDS + s.process())
                            .setThread(ThreadDescriptor.newBuilder().setPid(pid(s.process()))
                                    .setTid(info.processes().size() + 1 + s.index())
                                    .setThreadName(s.name() + " (thread " + s.thread() + ")"))).build());
        }
    }

    /**
     * Perfetto's pid of a process. Real pids repeat across machines (and are all 1 in containers),
     * and Perfetto merges tracks by pid and tid, so both are the profile's indices; the real ones
     * are in the names.
     */
    private static int pid(int process) {
        return process + 1;
    }

    void accept(ProfileEvent e, ThreadTrack t) throws IOException {
        long nanos = times.place(e, t);
        boolean slice = OpenRegions.opens(e.kind) || OpenRegions.closes(e.kind);
        if (slice && times.handoffsIn() + times.handoffsOut() > 0) {
            // a started thread's first event that opens or closes a region: its flow ends on an instant
            TrackEvent.Builder ev = TrackEvent.newBuilder().setType(TrackEvent.Type.TYPE_INSTANT)
                    .setTrackUuid(THREAD_UUIDS + t.stream.index());
            begin(t, t.regions.depth());
            handoffFlows(ev);
            long name = names.eventIid(-1, EventKind.THREAD_START);
            write(t, nanos, ev.setNameIid(name), name);
        }
        if (OpenRegions.opens(e.kind)) {
            t.regions.enter(e, nanos);
        } else if (OpenRegions.closes(e.kind)) {
            if (!t.regions.exit(e, nanos, (i, end, exit) -> close(t, i, end, exit))) {
                unpairedExits++;
            }
        } else {
            instant(t, e, nanos);
        }
    }

    /** Closes the regions still open: at each thread's last event, marked {@code not_exited}. */
    void finish() throws IOException {
        long last = 0;
        for (ThreadTrack t : tracks) {
            if (t != null) {
                t.regions.closeAll(t.lastNanos(), (i, end, exit) -> close(t, i, end, exit));
                last = Math.max(last, t.lastNanos());
            }
        }
        long raised = 0;
        for (ThreadTrack t : tracks) {
            raised += t == null ? 0 : t.raisedTimestamps();
        }
        TrackEvent.Builder summary = TrackEvent.newBuilder().setType(TrackEvent.Type.TYPE_INSTANT)
                .setTrackUuid(EXPORT_TRACK_UUID).setName("export summary")
                .addDebugAnnotations(named("timestamps", "interval midpoints, not bounds: the bounds are lo_ns/hi_ns"))
                .addDebugAnnotations(named("sync", info.sync()))
                .addDebugAnnotations(named("assumption", info.assumption()))
                .addDebugAnnotations(named("slices", slices))
                .addDebugAnnotations(named("slices_left_out", slicesLeftOut))
                .addDebugAnnotations(named("min_slice_ns", minSliceNanos))
                .addDebugAnnotations(named("flows", flows))
                .addDebugAnnotations(named("unpaired_exits", unpairedExits))
                .addDebugAnnotations(named("timestamps_raised", raised))
                .addDebugAnnotations(named("receives_moved_to_send", times.receivesMoved()));
        out.write(TracePacket.newBuilder().setTimestamp(last).setTrustedPacketSequenceId(METADATA_SEQUENCE)
                .setTrackEvent(summary).build());
    }

    private static DebugAnnotation named(String name, String value) {
        return DebugAnnotation.newBuilder().setName(name).setStringValue(value).build();
    }

    private static DebugAnnotation named(String name, long value) {
        return DebugAnnotation.newBuilder().setName(name).setIntValue(value).build();
    }

    /** Frame {@code i} of {@code t} closes at {@code end}: its end is written if it was begun or is long enough. */
    private void close(ThreadTrack t, int i, long end, ProfileEvent exit) throws IOException {
        if (i >= t.begun) {
            if (end - t.regions.beginNanos(i) < minSliceNanos) {
                slicesLeftOut++;
                return;
            }
            begin(t, i + 1);
        }
        TrackEvent.Builder ev = TrackEvent.newBuilder().setType(TrackEvent.Type.TYPE_SLICE_END)
                .setTrackUuid(THREAD_UUIDS + t.stream.index());
        if (exit == null) {
            ev.addDebugAnnotations(DebugAnnotation.newBuilder().setNameIid(Arg.NOT_EXITED.iid()).setBoolValue(true));
        } else {
            bound(ev, Arg.EXIT_BOUND, exit.lo, exit.hi, exit.truth);
            payload(ev, exit.kind, exit.a, exit.b);
            if (exit.kind == EventKind.EXIT_THROW) {
                ev.addDebugAnnotations(DebugAnnotation.newBuilder().setNameIid(Arg.THREW.iid()).setBoolValue(true));
            }
        }
        write(t, end, ev, 0);
        t.begun = i;
    }

    /** Writes the {@code SLICE_BEGIN}s of frames {@code [begun, depth)}, outermost first. */
    private void begin(ThreadTrack t, int depth) throws IOException {
        for (int i = t.begun; i < depth; i++) {
            ProfileEvent enter = t.regions.opener(i);
            long name = names.eventIid(enter.region, enter.kind);
            TrackEvent.Builder ev = TrackEvent.newBuilder().setType(TrackEvent.Type.TYPE_SLICE_BEGIN)
                    .setTrackUuid(THREAD_UUIDS + t.stream.index()).setNameIid(name);
            bound(ev, Arg.ENTER_BOUND, enter.lo, enter.hi, enter.truth);
            payload(ev, enter.kind, enter.a, enter.b);
            write(t, t.regions.beginNanos(i), ev, name);
            slices++;
        }
        t.begun = Math.max(t.begun, depth);
    }

    private void instant(ThreadTrack t, ProfileEvent e, long nanos) throws IOException {
        begin(t, t.regions.depth());
        long name = names.eventIid(e.region, e.kind);
        TrackEvent.Builder ev = TrackEvent.newBuilder().setType(TrackEvent.Type.TYPE_INSTANT)
                .setTrackUuid(THREAD_UUIDS + t.stream.index()).setNameIid(name);
        bound(ev, Arg.BOUND, e.lo, e.hi, e.truth);
        payload(ev, e.kind, e.a, e.b);
        EventTimes.Flow flow = times.flow();
        if (flow != null && e.kind == EventKind.SEND) {
            ev.addFlowIds(flow.id);
        } else if (flow != null) {
            ev.addTerminatingFlowIds(flow.id);
            flows++;
        }
        handoffFlows(ev);
        write(t, nanos, ev, name);
    }

    /** The handoff flows the event just placed starts and ends. */
    private void handoffFlows(TrackEvent.Builder ev) {
        for (int i = 0; i < times.handoffsOut(); i++) {
            ev.addFlowIds(times.handoffOut(i));
        }
        for (int i = 0; i < times.handoffsIn(); i++) {
            ev.addTerminatingFlowIds(times.handoffIn(i));
            flows++;
        }
    }

    private void bound(TrackEvent.Builder ev, Arg[] args, long lo, long hi, long truth) {
        long loNanos = clock.lower(lo);
        long hiNanos = clock.upper(hi);
        ev.addDebugAnnotations(DebugAnnotation.newBuilder().setNameIid(args[0].iid()).setIntValue(loNanos));
        ev.addDebugAnnotations(DebugAnnotation.newBuilder().setNameIid(args[1].iid()).setIntValue(hiNanos));
        ev.addDebugAnnotations(DebugAnnotation.newBuilder().setNameIid(args[2].iid()).setIntValue(hiNanos - loNanos));
        if (truth != ProfileEvent.NO_TRUTH) {
            ev.addDebugAnnotations(DebugAnnotation.newBuilder().setNameIid(args[3].iid()).setIntValue(clock.nearest(truth)));
        }
    }

    private static void payload(TrackEvent.Builder ev, EventKind kind, long a, long b) {
        Arg[] args = Arg.payload(kind);
        // A collective's second payload is its shape; the trace shows its participants.
        long second = kind == EventKind.BARRIER_ENTER || kind == EventKind.BARRIER_EXIT
                ? CollectiveShape.participantsOf(b) : b;
        for (int i = 0; i < args.length; i++) {
            ev.addDebugAnnotations(DebugAnnotation.newBuilder().setNameIid(args[i].iid()).setIntValue(i == 0 ? a : second));
        }
    }

    /** One event packet on {@code t}'s sequence, interning the event name there on its first use. */
    private void write(ThreadTrack t, long nanos, TrackEvent.Builder ev, long name) throws IOException {
        TracePacket.Builder p = TracePacket.newBuilder().setTimestamp(nanos)
                .setTrustedPacketSequenceId(sequenceOf(t.stream)).setSequenceFlags(NEEDS_STATE).setTrackEvent(ev);
        if (name != 0 && !t.internedNames.get((int) name)) {
            t.internedNames.set((int) name);
            p.setInternedData(InternedData.newBuilder().addEventNames(
                    EventName.newBuilder().setIid(name).setName(names.eventName(name))));
        }
        out.write(p.build());
    }

    long slices() {
        return slices;
    }

    long flows() {
        return flows;
    }
}
