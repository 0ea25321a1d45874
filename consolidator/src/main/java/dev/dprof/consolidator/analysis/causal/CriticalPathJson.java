package dev.dprof.consolidator.analysis.causal;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.dprof.consolidator.json.ResultJson;

/**
 * The JSON form of {@link CriticalPath.Result}, the one {@code dprof analyze PROFILE critical-path
 * --json} prints and the report holds as {@code criticalPath}: the span, the path's length in ns,
 * each share of it (unit-free {@code lo, hi}, and in ns), zeroing per region, the handoff edges on
 * the path, the {@code incomplete} note ({@link Incomplete}'s own form, or null), the replay's
 * {@code noBound} and {@code notReplayed} ({@link ResultJson#replay}; with {@code noBound} set the length
 * and the handoffs on the path are null) and what the path rests on; {@code truth} beside each where known.
 */
public final class CriticalPathJson {
    private CriticalPathJson() {
    }

    public static ObjectNode of(CriticalPath.Result r) {
        ObjectNode root = ResultJson.object();
        double nsPerTick = 1e9 / r.referenceTickHz();
        root.put("from", r.from()).put("to", r.to());
        boolean bounded = r.noBound() == null;
        root.put("lengthNsLo", bounded ? r.lengthTicksLo() * nsPerTick : Double.NaN)
                .put("lengthNsHi", bounded ? r.lengthTicksHi() * nsPerTick : Double.NaN);
        if (r.lengthTicksTruth() != null) {
            root.put("lengthNsTruth", r.lengthTicksTruth() * nsPerTick);
        }
        ArrayNode shares = root.putArray("shares");
        for (CriticalPath.Share s : r.shares()) {
            ResultJson.truth(shares.addObject().put("name", s.name()).put("lo", s.lo()).put("hi", s.hi())
                    .put("nsLo", s.ticksLo() * nsPerTick).put("nsHi", s.ticksHi() * nsPerTick), "truth", s.truth());
        }
        ArrayNode zeroing = root.putArray("zeroing");
        for (CriticalPath.Zeroing z : r.zeroing()) {
            ResultJson.truth(zeroing.addObject().put("region", z.region()).put("lo", z.savedLo()).put("hi", z.savedHi())
                    .put("newLengthNsLo", z.newLengthTicksLo() * nsPerTick)
                    .put("newLengthNsHi", z.newLengthTicksHi() * nsPerTick), "truth", z.truth());
        }
        if (bounded) {
            ResultJson.truth(root.putObject("handoffsOnPath").put("lo", r.handoffsOnPathLo())
                    .put("hi", r.handoffsOnPathHi()), "truth", r.handoffsOnPathTruth());
        } else {
            root.putNull("handoffsOnPath");
        }
        root.set("incomplete", ResultJson.tree(r.incomplete()));
        ResultJson.replay(root, r.noBound(), r.notReplayed());
        root.put("quality", r.quality()).put("assumption", r.assumption());
        return ResultJson.finite(root);
    }
}
