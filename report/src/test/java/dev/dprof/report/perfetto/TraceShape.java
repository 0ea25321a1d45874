package dev.dprof.report.perfetto;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.report.perfetto.proto.DebugAnnotation;
import dev.dprof.report.perfetto.proto.DebugAnnotationName;
import dev.dprof.report.perfetto.proto.TracePacket;
import dev.dprof.report.perfetto.proto.TrackDescriptor;
import dev.dprof.report.perfetto.proto.TrackEvent;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What a trace holds, read back packet by packet and checked as it goes against what Perfetto
 * needs: timestamps never going back within a sequence, slices balanced per track, every event on
 * a described track, every flow ended once after its start.
 */
final class TraceShape {
    /** A slice as read: its track, begin and end timestamps, and whether an instant lies in it. */
    record Slice(long track, long begin, long end, boolean holdsInstant) {
    }

    private static final class Open {
        final long begin;
        boolean holdsInstant;

        Open(long begin) {
            this.begin = begin;
        }
    }

    final Map<Long, TrackDescriptor> tracks = new HashMap<>();
    final List<Slice> slices = new ArrayList<>();
    final Map<String, Long> summary = new HashMap<>();
    long instants;
    long packets;
    /** Flows whose end comes before their start in trace time. */
    long backwardFlows;
    /** Bounds read, and those whose event is drawn outside them (moved: a receive to its send). */
    long bounds;
    long outsideBound;
    final Map<Long, Long> flowStarts = new HashMap<>();
    final Map<Long, Long> flowEnds = new HashMap<>();
    private final Map<Integer, Long> lastOfSequence = new HashMap<>();
    private final Map<Long, Deque<Open>> open = new HashMap<>();
    private final Map<Integer, Map<Long, String>> argNames = new HashMap<>();

    static TraceShape read(Path file) throws IOException {
        TraceShape shape = new TraceShape();
        TraceFile.forEach(file, shape::accept);
        shape.open.forEach((track, stack) -> assertTrue(stack.isEmpty(), "track " + track + " ends with open slices"));
        assertEquals(shape.flowStarts.keySet().containsAll(shape.flowEnds.keySet()), true, "every flow ended was started");
        return shape;
    }

    private void accept(TracePacket p) {
        packets++;
        int sequence = p.getTrustedPacketSequenceId();
        long last = lastOfSequence.getOrDefault(sequence, 0L);
        assertTrue(p.getTimestamp() >= last, "sequence " + sequence + " goes back from " + last + " to " + p.getTimestamp());
        lastOfSequence.put(sequence, p.getTimestamp());
        for (DebugAnnotationName n : p.getInternedData().getDebugAnnotationNamesList()) {
            argNames.computeIfAbsent(sequence, s -> new HashMap<>()).put(n.getIid(), n.getName());
        }
        if (p.hasTrackDescriptor()) {
            TrackDescriptor d = p.getTrackDescriptor();
            assertEquals(null, tracks.put(d.getUuid(), d), "track " + d.getUuid() + " described twice");
            if (d.hasParentUuid()) {
                assertTrue(tracks.containsKey(d.getParentUuid()), "a parent is described before its children");
            }
            return;
        }
        TrackEvent e = p.getTrackEvent();
        checkBound(sequence, e, p.getTimestamp());
        assertTrue(tracks.containsKey(e.getTrackUuid()), "an event on an undescribed track " + e.getTrackUuid());
        Deque<Open> stack = open.computeIfAbsent(e.getTrackUuid(), t -> new ArrayDeque<>());
        switch (e.getType()) {
            case TYPE_SLICE_BEGIN -> stack.push(new Open(p.getTimestamp()));
            case TYPE_SLICE_END -> {
                assertTrue(!stack.isEmpty(), "an end without a begin on track " + e.getTrackUuid());
                Open o = stack.pop();
                if (o.holdsInstant && !stack.isEmpty()) {
                    stack.peek().holdsInstant = true;
                }
                slices.add(new Slice(e.getTrackUuid(), o.begin, p.getTimestamp(), o.holdsInstant));
            }
            case TYPE_INSTANT -> {
                if (e.hasName() && e.getName().equals("export summary")) {
                    for (DebugAnnotation a : e.getDebugAnnotationsList()) {
                        summary.put(a.getName(), a.getIntValue());
                    }
                    return;
                }
                instants++;
                if (!stack.isEmpty()) {
                    stack.peek().holdsInstant = true;
                }
                for (long id : e.getFlowIdsList()) {
                    assertEquals(null, flowStarts.put(id, p.getTimestamp()), "flow " + id + " started twice");
                }
                for (long id : e.getTerminatingFlowIdsList()) {
                    assertEquals(null, flowEnds.put(id, p.getTimestamp()), "flow " + id + " ended twice");
                    Long start = flowStarts.get(id);
                    assertTrue(start != null, "flow " + id + " ends before it starts in the file");
                    if (p.getTimestamp() < start) {
                        backwardFlows++;
                    }
                }
            }
            default -> throw new AssertionError("unexpected event type " + e.getType());
        }
    }

    /**
     * Counts the events drawn outside the bound they carry ({@code lo_ns ≤ t ≤ hi_ns}, with the
     * prefix of its side of the slice); checks the truth lies within it when there is one.
     */
    private void checkBound(int sequence, TrackEvent e, long t) {
        Map<String, Long> args = new HashMap<>();
        Map<Long, String> names = argNames.getOrDefault(sequence, Map.of());
        for (DebugAnnotation a : e.getDebugAnnotationsList()) {
            args.put(a.hasNameIid() ? names.get(a.getNameIid()) : a.getName(), a.getIntValue());
        }
        for (String side : new String[] {"", "enter.", "exit."}) {
            Long lo = args.get(side + "lo_ns");
            if (lo == null) {
                continue;
            }
            long hi = args.get(side + "hi_ns");
            assertEquals(hi - lo, args.get(side + "width_ns"));
            if (t < lo || t > hi) {
                outsideBound++;
            }
            Long truth = args.get(side + "truth_ns");
            assertTrue(truth == null || lo <= truth && truth <= hi, "truth " + truth + " outside [" + lo + ", " + hi + "]");
            bounds++;
        }
    }
}
