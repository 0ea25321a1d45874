package dev.dprof.agent.config;

import static dev.dprof.agent.config.YamlNodes.describe;
import static dev.dprof.agent.config.YamlNodes.isNull;
import static dev.dprof.agent.config.YamlNodes.quote;

import dev.dprof.format.HandoffRegions;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;

/** The {@code handoffs:} section: which of the handoffs the agent records without configuration stay on. */
final class HandoffsReader {

    static final List<String> HANDOFF_KINDS = java.util.Arrays.stream(HandoffRegions.Kind.values())
            .map(HandoffRegions.Kind::yamlName).toList();

    private final YamlNodes y;

    HandoffsReader(YamlNodes y) {
        this.y = y;
    }

    /** {@code auto} (every kind), {@code off} (none), or the list of kinds that stay on. */
    Set<HandoffRegions.Kind> read(Node v) throws ConfigException {
        String kinds = String.join(", ", HANDOFF_KINDS);
        if (v instanceof ScalarNode s && !isNull(v)) {
            switch (s.getValue().toLowerCase(Locale.ROOT)) {
                case "auto":
                    return AgentConfig.ALL_HANDOFFS;
                case "off":
                    return Set.of();
                default:
                    break;
            }
        }
        if (!(v instanceof SequenceNode)) {
            throw y.error(v, "handoffs", "expected auto, off or a list of kinds (" + kinds + "), found "
                    + describe(v));
        }
        List<Node> items = y.list(v, "handoffs");
        Set<HandoffRegions.Kind> on = java.util.EnumSet.noneOf(HandoffRegions.Kind.class);
        for (int i = 0; i < items.size(); i++) {
            String path = "handoffs[" + i + "]";
            HandoffRegions.Kind kind = y.choice(items.get(i), path, "handoff kind", HandoffRegions.Kind.values(),
                    HandoffRegions.Kind::yamlName);
            if (!on.add(kind)) {
                throw y.error(items.get(i), path, "duplicate handoff kind " + quote(kind.yamlName()));
            }
        }
        return on;
    }
}
