package dev.dprof.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;

/**
 * How every command shows a figure that has no bound (a process whose calibration is CONTRADICTED
 * has no rate bound, so a duration of its events has no upper end; docs/BOUNDS.md, "No bound" under "Durations"):
 * {@code no bound} in text, {@code null} in JSON. A double that is infinite or NaN is never
 * printed as such: "Infinity" reads as a measured figure, and NaN as a bug.
 */
final class NoBound {
    /** The text form. */
    static final String TEXT = "no bound";

    private NoBound() {
    }

    /** {@code v} with {@code decimals} decimals, or {@link #TEXT} if it is not finite. */
    static String fixed(double v, int decimals) {
        return Double.isFinite(v) ? String.format(Locale.ROOT, "%." + decimals + "f", v) : TEXT;
    }

    /**
     * {@code node} with every number that is not finite replaced by null, in place: the safety net of
     * the one JSON writer ({@link Json}), whatever an analysis put in its tree.
     */
    static JsonNode finite(JsonNode node) {
        if (node instanceof ObjectNode object) {
            for (Iterator<Map.Entry<String, JsonNode>> it = object.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> field = it.next();
                if (field.getValue().isNumber() && !Double.isFinite(field.getValue().asDouble())) {
                    field.setValue(object.nullNode());
                } else {
                    finite(field.getValue());
                }
            }
        } else if (node instanceof ArrayNode array) {
            for (int i = 0; i < array.size(); i++) {
                JsonNode element = array.get(i);
                if (element.isNumber() && !Double.isFinite(element.asDouble())) {
                    array.set(i, array.nullNode());
                } else {
                    finite(element);
                }
            }
        }
        return node;
    }
}
