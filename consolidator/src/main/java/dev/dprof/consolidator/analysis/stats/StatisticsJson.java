package dev.dprof.consolidator.analysis.stats;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.dprof.consolidator.json.ResultJson;

/**
 * The JSON form of {@link ProfileStatistics.Result}, the one {@code dprof analyze PROFILE stats
 * --json} prints and the report holds as {@code statistics}: every figure in ns at the reference's
 * nominal rate ({@link ProfileStatistics#UNIT}), each bound {@code {"lo", "hi"}} with the probe cost
 * taken off, the measured figures under {@code uncorrected}, the truth beside them when known.
 */
public final class StatisticsJson {
    private StatisticsJson() {
    }

    public static ObjectNode of(ProfileStatistics.Result r) {
        ObjectNode root = ResultJson.object();
        ArrayNode regions = root.putArray("regions");
        for (ProfileStatistics.RegionFigures f : r.regions()) {
            figures(r, regions.addObject().put("name", f.name()).put("kind", f.kind()), f);
        }
        ArrayNode instances = root.putArray("instances");
        for (ProfileStatistics.RegionFigures f : r.instances()) {
            figures(r, instances.addObject().put("name", f.name()).put("kind", f.kind()), f);
        }
        ArrayNode callers = root.putArray("callers");
        for (ProfileStatistics.RegionFigures f : r.callers()) {
            figures(r, callers.addObject().put("caller", f.caller()).put("name", f.name()), f);
        }
        ArrayNode peers = root.putArray("peers");
        for (ProfileStatistics.PeerFigures p : r.peers()) {
            ObjectNode n = peers.addObject().put("from", p.from()).put("fromLabel", p.fromLabel())
                    .put("to", p.to()).put("toLabel", p.toLabel()).put("quality", p.quality())
                    .put("messages", p.transmission().count());
            durations(r, n.putObject("transmissionNs"), p.transmission());
            if (p.transmissionTruth() != null) {
                truth(r, n.putObject("truthTransmissionNs"), p.transmissionTruth());
            }
            n.put("barrierInstances", p.barrierInstances());
            bound(r, n, "syncDelayNs", p.syncDelay());
            if (p.syncDelayTruth() != null) {
                n.put("truthSyncDelayNs", r.nanos(p.syncDelayTruth()));
            }
        }
        ArrayNode waits = root.putArray("barrierWaits");
        for (ProfileStatistics.BarrierWait w : r.barrierWaits()) {
            ObjectNode n = waits.addObject().put("process", w.process()).put("label", w.label())
                    .put("quality", w.quality()).put("instances", w.instances());
            bound(r, n, "waitNs", w.delay());
            if (w.truth() != null) {
                n.put("truthWaitNs", r.nanos(w.truth()));
            }
        }
        ProfileStatistics.Totals t = r.totals();
        ObjectNode totals = root.putObject("totals").put("events", t.events()).put("instances", t.instances())
                .put("open", t.open()).put("outsideWindow", t.outsideWindow())
                .put("unpairedEnters", t.unpairedEnters()).put("unpairedExits", t.unpairedExits())
                .put("backwardTicks", t.backwardTicks()).put("probeCorrectionNs", r.nanos(t.probeCorrection().hi()));
        bound(r, totals, "probeCorrectionRangeNs", t.probeCorrection());
        bound(r, totals, "probeCostNs", t.probeCost());
        totals.put("matchedMessages", t.matchedMessages()).put("unmatchedSends", t.unmatchedSends())
                .put("unmatchedReceives", t.unmatchedReceives()).put("ambiguousMessages", t.ambiguousMessages())
                .put("barrierInstances", t.barrierInstances())
                .put("unfinishedBarrierInstances", t.unfinishedBarrierInstances());
        root.put("unit", ProfileStatistics.UNIT);
        root.put("referenceTickHz", r.referenceTickHz());
        root.put("quality", r.quality());
        root.put("assumption", r.assumption());
        root.put("truth", r.truth());
        root.put("probeCost", "subtracted per instance: max(0, Δk − (nested events + 1) × probe cost) × [slopeLow, "
                + "slopeHigh]; the uncorrected figures are under 'uncorrected'");
        ArrayNode notes = root.putArray("notes");
        r.notes().forEach(notes::add);
        return ResultJson.finite(root);
    }

    private static void figures(ProfileStatistics.Result r, ObjectNode n, ProfileStatistics.RegionFigures f) {
        n.put("count", f.count()).put("open", f.open()).put("outsideWindow", f.outsideWindow())
                .put("quality", f.quality());
        Durations d = f.corrected();
        bound(r, n, "totalNs", d.total());
        bound(r, n, "meanNs", d.mean());
        bound(r, n, "minNs", d.min());
        bound(r, n, "maxNs", d.max());
        n.put("probeCorrectionNs", r.nanos(f.correction().hi()));
        bound(r, n, "probeCorrectionRangeNs", f.correction());
        ObjectNode u = n.putObject("uncorrected");
        Durations m = f.measured();
        bound(r, u, "totalNs", m.total());
        bound(r, u, "meanNs", m.mean());
        bound(r, u, "minNs", m.min());
        bound(r, u, "maxNs", m.max());
        TruthDurations t = f.truth();
        if (t != null) {
            n.put("truthTotalNs", r.nanos(t.total())).put("truthMeanNs", r.nanos(t.mean()))
                    .put("truthMinNs", r.nanos(t.min())).put("truthMaxNs", r.nanos(t.max()));
        }
    }

    private static void durations(ProfileStatistics.Result r, ObjectNode n, Durations d) {
        bound(r, n, "total", d.total());
        bound(r, n, "mean", d.mean());
        bound(r, n, "min", d.min());
        bound(r, n, "max", d.max());
    }

    private static void truth(ProfileStatistics.Result r, ObjectNode n, TruthDurations t) {
        n.put("total", r.nanos(t.total())).put("mean", r.nanos(t.mean())).put("min", r.nanos(t.min()))
                .put("max", r.nanos(t.max()));
    }

    /** {@code {"lo", "hi"}} in ns; an upper end without a bound is null. */
    private static void bound(ProfileStatistics.Result r, ObjectNode n, String name, Bound b) {
        ResultJson.bound(n, name, r.nanos(b.lo()), r.nanos(b.hi()));
    }
}
