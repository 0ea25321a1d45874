package dev.dprof.consolidator.analysis.straggler;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.dprof.consolidator.json.ResultJson;

/**
 * The JSON form of {@link StragglerScore.Result}, the one {@code dprof analyze PROFILE straggler
 * --json} prints and the report holds as {@code straggler}: the regions, each thread's and each
 * process's score as a unit-free share {@code lo, hi} (with {@code truth} when known), what the
 * scores rest on and the span in seconds.
 */
public final class StragglerJson {
    private StragglerJson() {
    }

    public static ObjectNode of(StragglerScore.Result r) {
        ObjectNode root = ResultJson.object().put("body", r.body()).put("barrier", r.barrier());
        ArrayNode threads = root.putArray("threads");
        for (StragglerScore.ThreadScore t : r.threads()) {
            ResultJson.truth(threads.addObject().put("process", t.process()).put("thread", t.thread())
                    .put("lo", t.lo()).put("hi", t.hi()), "truth", t.truth());
        }
        ArrayNode processes = root.putArray("processes");
        for (StragglerScore.ProcessScore p : r.processes()) {
            ResultJson.truth(processes.addObject().put("process", p.process()).put("label", p.label())
                    .put("lo", p.lo()).put("hi", p.hi()), "truth", p.truth());
        }
        root.put("quality", r.quality());
        root.put("assumption", r.assumption());
        root.put("spanSecondsMin", r.spanSecondsMin());
        root.put("spanSecondsMax", r.spanSecondsMax());
        return ResultJson.finite(root);
    }
}
