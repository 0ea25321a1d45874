package dev.dprof.consolidator.json;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;

/**
 * The rules of every result's JSON form, so that {@code dprof analyze … --json}, {@code dprof
 * report}'s data and the page drawn from it show a result one way: durations in ns at the
 * reference's nominal rate, a bound as {@code {"lo", "hi"}}, the truth only where the clocks were
 * simulated, and a figure without a bound as {@code null} (docs/BOUNDS.md, "No bound"). JSON has no
 * Infinity or NaN, and a reader would take "Infinity" for a measured figure: every form ends with
 * {@link #finite}.
 */
public final class ResultJson {
    /** The mapper of every result's form; writers that indent copy it. */
    public static final ObjectMapper MAPPER = new ObjectMapper();

    private ResultJson() {
    }

    /** A new, empty object. */
    public static ObjectNode object() {
        return MAPPER.createObjectNode();
    }

    /** A value's own Jackson form (a record's components), its numbers made finite. */
    public static JsonNode tree(Object value) {
        return finite(MAPPER.valueToTree(value));
    }

    /** {@code parent.name = {"lo", "hi"}}; an end that is not finite (no bound) is null. */
    public static ObjectNode bound(ObjectNode parent, String name, double lo, double hi) {
        return finite(parent.putObject(name).put("lo", lo).put("hi", hi));
    }

    /** {@code n.name = truth} when the truth is known; nothing otherwise. */
    public static ObjectNode truth(ObjectNode n, String name, Double truth) {
        if (truth != null) {
            n.put(name, truth);
        }
        return n;
    }

    /**
     * What a causal replay says about processes whose clock has no rate bound (docs/BOUNDS.md, "No
     * bound"): {@code noBound}, why its figures have no bound (null when they have), and
     * {@code notReplayed[]}, the processes the replay ran without.
     */
    public static ObjectNode replay(ObjectNode root, String noBound, java.util.List<String> notReplayed) {
        root.put("noBound", noBound);
        ArrayNode processes = root.putArray("notReplayed");
        notReplayed.forEach(processes::add);
        return root;
    }

    /** {@code node} with every number that is not finite replaced by null, in place. */
    public static <T extends JsonNode> T finite(T node) {
        if (node instanceof ObjectNode object) {
            for (Map.Entry<String, JsonNode> field : object.properties()) {
                if (notFinite(field.getValue())) {
                    field.setValue(object.nullNode());
                } else {
                    finite(field.getValue());
                }
            }
        } else if (node instanceof ArrayNode array) {
            for (int i = 0; i < array.size(); i++) {
                if (notFinite(array.get(i))) {
                    array.set(i, array.nullNode());
                } else {
                    finite(array.get(i));
                }
            }
        }
        return node;
    }

    private static boolean notFinite(JsonNode n) {
        return n.isNumber() && !Double.isFinite(n.asDouble());
    }
}
