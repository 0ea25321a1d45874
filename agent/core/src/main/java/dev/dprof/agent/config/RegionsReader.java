package dev.dprof.agent.config;

import static dev.dprof.agent.config.YamlNodes.isNull;
import static dev.dprof.agent.config.YamlNodes.line;
import static dev.dprof.agent.config.YamlNodes.quote;

import dev.dprof.agent.config.YamlNodes.Fields;
import dev.dprof.format.CollectiveFlavour;
import dev.dprof.format.OwnRegions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.yaml.snakeyaml.nodes.Node;

/**
 * The {@code regions:} section: each region's methods, its kind and the keys its kind requires or forbids, checked
 * so that a {@link RegionSpec} holds the rules its javadoc lists; names and ids unique across the file.
 */
final class RegionsReader {

    static final List<String> REGION_KEYS = List.of("name", "class", "method", "descriptor", "kind", "id", "channel",
            "key", "participants", "instance", "flavour", "rank", "root", "side");

    private final YamlNodes y;
    private final ValueSourceReader sources;

    RegionsReader(YamlNodes y) {
        this.y = y;
        this.sources = new ValueSourceReader(y);
    }

    List<RegionSpec> read(Node v) throws ConfigException {
        if (isNull(v)) {
            return List.of();
        }
        List<Node> items = y.list(v, "regions");
        List<RegionSpec> out = new ArrayList<>(items.size());
        Map<String, RegionSpec> byName = new HashMap<>();
        Map<Integer, RegionSpec> byId = new HashMap<>();
        for (int i = 0; i < items.size(); i++) {
            String path = "regions[" + i + "]";
            Node item = items.get(i);
            RegionSpec r = region(item, path);
            Fields f = y.fields(item, path);
            RegionSpec sameName = byName.putIfAbsent(r.name(), r);
            if (sameName != null) {
                String kinds = sameName.kind() == r.kind() ? ""
                        : " as kind " + sameName.kind().yamlName() + "; here kind " + r.kind().yamlName();
                throw y.error(f.value("name"), path + ".name", "duplicate region name " + quote(r.name())
                        + " (first defined at line " + sameName.line() + kinds + ")");
            }
            Optional<String> own = OwnRegions.ownerOf(r.name());
            if (own.isPresent()) {
                throw y.error(f.value("name"), path + ".name", "region name " + quote(r.name()) + " is taken by "
                        + own.get() + "; choose another name");
            }
            if (r.id().isPresent()) {
                RegionSpec sameId = byId.putIfAbsent(r.id().getAsInt(), r);
                if (sameId != null) {
                    throw y.error(f.value("id"), path + ".id", "duplicate region id " + r.id().getAsInt()
                            + " (already used by region " + quote(sameId.name()) + " at line "
                            + sameId.line() + ")");
                }
            }
            out.add(r);
        }
        return out;
    }

    private RegionSpec region(Node n, String path) throws ConfigException {
        Fields f = y.fields(n, path);
        y.only(f, REGION_KEYS);
        String name = y.requiredString(f, "name");
        String cls = y.requiredString(f, "class");
        String method = y.requiredString(f, "method");
        y.classPattern(f.value("class"), f.path("class"), cls);
        try {
            ClassPattern.forMethod(method);
        } catch (IllegalArgumentException e) {
            throw y.error(f.value("method"), f.path("method"), "invalid method pattern " + quote(method) + ": "
                    + e.getMessage());
        }
        Optional<String> descriptor = Optional.empty();
        if (f.has("descriptor")) {
            Node dn = f.value("descriptor");
            String d = y.nonEmptyString(dn, f.path("descriptor"));
            String problem = MethodDescriptors.problem(d);
            if (problem != null) {
                throw y.error(dn, f.path("descriptor"), "invalid method descriptor " + quote(d) + ": " + problem);
            }
            if (method.equals("<init>") && !MethodDescriptors.returnsVoid(d)) {
                throw y.error(dn, f.path("descriptor"), "invalid method descriptor " + quote(d)
                        + ": a constructor ('<init>') returns V");
            }
            descriptor = Optional.of(d);
        }
        RegionKind kind = f.has("kind")
                ? y.choice(f.value("kind"), f.path("kind"), "kind", RegionKind.values(), RegionKind::yamlName)
                : RegionKind.PLAIN;
        OptionalInt id = f.has("id")
                ? OptionalInt.of(y.intInRange(f.value("id"), f.path("id"), 1, RegionSpec.MAX_ID))
                : OptionalInt.empty();

        notAllowed(f, "channel", kind, kind.hasChannel(), "send, receive, handoff");
        notAllowed(f, "key", kind, kind.needsKey(), "send, receive, barrier, collective, handoff");
        notAllowed(f, "side", kind, kind == RegionKind.HANDOFF, "handoff");
        Optional<RegionSpec.HandoffSide> side = Optional.empty();
        if (kind == RegionKind.HANDOFF) {
            if (!f.has("side")) {
                throw y.error(n, path, "missing required key 'side' for kind handoff (put or take)");
            }
            side = Optional.of(y.choice(f.value("side"), f.path("side"), "side", RegionSpec.HandoffSide.values(),
                    RegionSpec.HandoffSide::yamlName));
        }
        notAllowed(f, "participants", kind, kind.isCollective(), "barrier, collective");
        notAllowed(f, "flavour", kind, kind == RegionKind.COLLECTIVE, "collective");
        if (kind.needsKey() && !f.has("key")) {
            throw y.error(n, path, "missing required key 'key' for kind " + kind.yamlName()
                    + (kind.isCollective() ? " (the " + kind.yamlName() + " instance key)"
                    : kind == RegionKind.HANDOFF ? " (what identifies the thing handed over)" : " (the message key)"));
        }
        if (kind.isCollective() && !f.has("participants")) {
            throw y.error(n, path, "missing required key 'participants' for kind " + kind.yamlName());
        }
        Optional<RegionSpec.Collective> collective = kind == RegionKind.COLLECTIVE
                ? Optional.of(collective(f, n, path)) : Optional.empty();
        if (kind != RegionKind.COLLECTIVE) {
            notAllowed(f, "rank", kind, false, "collective");
            notAllowed(f, "root", kind, false, "collective");
        }

        Optional<ValueSource> channel = Optional.empty();
        if (f.has("channel")) {
            channel = Optional.of(sources.channel(f.value("channel"), f.path("channel"), kind));
        } else if (kind.hasChannel()) {
            channel = Optional.of(new ValueSource.Const(name));
        }
        Optional<ValueSource> key = f.has("key")
                ? Optional.of(sources.valueSource(f.value("key"), f.path("key"), kind, true))
                : Optional.empty();
        if (key.isPresent() && key.get() instanceof ValueSource.Return
                && side.orElse(null) == RegionSpec.HandoffSide.PUT) {
            throw y.error(f.value("key"), f.path("key"),
                    ValueSourceReader.RETURN_ONLY + "not a handoff's put (it is recorded on entry)");
        }
        Optional<ValueSource> participants = f.has("participants")
                ? Optional.of(sources.participants(f.value("participants"), f.path("participants"), kind))
                : Optional.empty();
        Optional<ValueSource> instance = f.has("instance")
                ? Optional.of(sources.instance(f.value("instance"), f.path("instance"), kind))
                : Optional.empty();
        return new RegionSpec(name, cls, method, descriptor, kind, id, channel, key, participants, instance,
                line(n.getStartMark()), collective, side);
    }

    /** A collective's flavour and, as the flavour needs them, where its rank and its root come from. */
    private RegionSpec.Collective collective(Fields f, Node n, String path) throws ConfigException {
        if (!f.has("flavour")) {
            throw y.error(n, path, "missing required key 'flavour' for kind collective (one of "
                    + String.join(", ", CollectiveFlavour.NAMES) + ")");
        }
        String name = y.choice(f.value("flavour"), f.path("flavour"), "flavour",
                CollectiveFlavour.NAMES.toArray(new String[0]), s -> s);
        CollectiveFlavour flavour = CollectiveFlavour.ofName(name);
        String why = " (flavour " + name + ")";
        if (f.has("rank") && !flavour.ranked) {
            throw y.error(f.keyNode("rank"), f.path("rank"), "not allowed for flavour " + name
                    + ": its order does not depend on ranks");
        }
        if (f.has("root") && !flavour.rooted) {
            throw y.error(f.keyNode("root"), f.path("root"), "not allowed for flavour " + name + ": it has no root");
        }
        if (flavour.ranked && !f.has("rank")) {
            throw y.error(n, path, "missing required key 'rank' for kind collective" + why
                    + " (this participant's rank, 0 .. participants − 1)");
        }
        if (flavour.rooted && !f.has("root")) {
            throw y.error(n, path, "missing required key 'root' for kind collective" + why + " (the root's rank)");
        }
        Optional<ValueSource> rank = f.has("rank")
                ? Optional.of(sources.rankSource(f.value("rank"), f.path("rank"))) : Optional.empty();
        Optional<ValueSource> root = f.has("root")
                ? Optional.of(sources.rankSource(f.value("root"), f.path("root"))) : Optional.empty();
        return new RegionSpec.Collective(flavour, rank, root);
    }

    private void notAllowed(Fields f, String key, RegionKind kind, boolean allowed, String kinds)
            throws ConfigException {
        if (f.has(key) && !allowed) {
            throw y.error(f.keyNode(key), f.path(key), "not allowed for kind " + kind.yamlName() + " (only for "
                    + kinds + ")");
        }
    }
}
