package dev.dprof.consolidator.analysis.causal;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.dprof.consolidator.json.ResultJson;
import java.util.List;

/**
 * The JSON form of {@link WhatIf.Result}, the one {@code dprof analyze PROFILE whatif --json}
 * prints and the report holds as {@code whatif}: the span in ns, per prediction the region, the
 * cut ({@code speedup}), the program speedup {@code lo, hi} (unit-free, {@code truth} when known),
 * the gain in ns, progress points' and a transaction region's speedups; the {@code incomplete} note
 * ({@link Incomplete}'s own form, or null), the replay's {@code noBound} and {@code notReplayed}
 * ({@link ResultJson#replay}) and what the predictions rest on.
 */
public final class WhatIfJson {
    private WhatIfJson() {
    }

    /** Every prediction. */
    public static ObjectNode of(WhatIf.Result r) {
        return of(r, r.predictions());
    }

    /** The result with {@code shown} (some of its predictions, e.g. the first of a ranking) for its predictions. */
    public static ObjectNode of(WhatIf.Result r, List<WhatIf.Prediction> shown) {
        ObjectNode root = ResultJson.object();
        root.put("from", r.from()).put("to", r.to()).put("spanNsLo", r.spanNsLo()).put("spanNsHi", r.spanNsHi());
        ResultJson.truth(root, "spanNsTruth", r.spanNsTruth());
        ArrayNode predictions = root.putArray("predictions");
        for (WhatIf.Prediction p : shown) {
            predictions.add(prediction(r, p));
        }
        root.set("incomplete", ResultJson.tree(r.incomplete()));
        ResultJson.replay(root, r.noBound(), r.notReplayed());
        root.put("quality", r.quality()).put("assumption", r.assumption());
        return ResultJson.finite(root);
    }

    /** One prediction of {@code r}, as in {@code predictions}. */
    public static ObjectNode prediction(WhatIf.Result r, WhatIf.Prediction p) {
        ObjectNode n = ResultJson.object().put("region", p.region()).put("speedup", p.fraction())
                .put("lo", p.lo()).put("hi", p.hi());
        ResultJson.truth(n, "truth", p.truth());
        n.put("gainNsLo", p.gainTicksLo() * 1e9 / r.referenceTickHz())
                .put("gainNsHi", p.gainTicksHi() * 1e9 / r.referenceTickHz());
        ArrayNode progress = n.putArray("progress");
        for (WhatIf.ProgressSpeedup s : p.progress()) {
            ResultJson.truth(progress.addObject().put("point", s.point()).put("visits", s.visits())
                    .put("lo", s.lo()).put("hi", s.hi()), "truth", s.truth());
        }
        WhatIf.LatencySpeedup l = p.latency();
        if (l != null) {
            ResultJson.truth(n.putObject("latency").put("region", l.region()).put("instances", l.instances())
                    .put("lo", l.lo()).put("hi", l.hi()), "truth", l.truth());
        }
        return ResultJson.finite(n);
    }
}
