package dev.dprof.agent.config;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;

/**
 * Typed access to the node graph of one configuration file: mappings (merge keys applied, duplicate keys
 * rejected), lists, strings, integers, booleans and choices. Every mismatch is a {@link ConfigException} whose one
 * line names the file, the line and the key path ({@code dprof.yaml:12: regions[1].kind: ...}); the section readers
 * ({@link TopLevelReader} and the readers it calls) build every message through {@link #error}.
 */
final class YamlNodes {

    private static final Pattern DECIMAL = Pattern.compile("[-+]?(?:0|[1-9][0-9_]*)");
    private static final Pattern HEX = Pattern.compile("[-+]?0x[0-9a-fA-F_]+");
    private static final Pattern LEADING_ZERO = Pattern.compile("[-+]?0[0-9_]+");

    private final String source;
    /** Each mapping's keys, merges applied, computed once: aliases share nodes, so merges could repeat. */
    private final Map<Node, LinkedHashMap<String, NodeTuple>> flattened = new IdentityHashMap<>();

    YamlNodes(String source) {
        this.source = source;
    }

    ConfigException error(Node at, String path, String message) {
        Mark mark = at == null ? null : at.getStartMark();
        String where = mark == null ? source : source + ":" + line(mark);
        return new ConfigException(where + ": " + (path.isEmpty() ? "" : path + ": ") + message);
    }

    Fields fields(Node n, String path) throws ConfigException {
        if (!(n instanceof MappingNode m)) {
            throw error(n, path, "expected a mapping, found " + describe(n));
        }
        LinkedHashMap<String, NodeTuple> known = flattened.get(n);
        if (known != null) {
            return new Fields(n, path, known);
        }
        LinkedHashMap<String, NodeTuple> entries = new LinkedHashMap<>();
        List<Node> merges = new ArrayList<>();
        for (NodeTuple t : m.getValue()) {
            Node k = t.getKeyNode();
            if (Tag.MERGE.equals(k.getTag())) {
                merges.add(t.getValueNode());
                continue;
            }
            if (!(k instanceof ScalarNode ks) || isNull(k)) {
                throw error(k, path, "expected a key name, found " + describe(k));
            }
            NodeTuple first = entries.putIfAbsent(ks.getValue(), t);
            if (first != null) {
                throw error(k, path, "duplicate key " + quote(ks.getValue()) + " (first at line "
                        + line(first.getKeyNode().getStartMark()) + ")");
            }
        }
        for (Node merge : merges) {
            List<Node> sources = merge instanceof SequenceNode s ? s.getValue() : List.of(merge);
            for (Node src : sources) {
                if (!(src instanceof MappingNode)) {
                    throw error(src, path, "'<<' (merge) expects a mapping or a list of mappings, found "
                            + describe(src));
                }
                fields(src, path).entries.forEach(entries::putIfAbsent);
            }
        }
        flattened.put(n, entries);
        return new Fields(n, path, entries);
    }

    void only(Fields f, List<String> known) throws ConfigException {
        for (Map.Entry<String, NodeTuple> e : f.entries.entrySet()) {
            if (!known.contains(e.getKey())) {
                throw error(e.getValue().getKeyNode(), f.path, "unknown key " + quote(e.getKey())
                        + " (expected one of " + String.join(", ", known) + ")");
            }
        }
    }

    List<Node> list(Node v, String path) throws ConfigException {
        if (!(v instanceof SequenceNode s)) {
            throw error(v, path, "expected a list, found " + describe(v));
        }
        return s.getValue();
    }

    String nonEmptyString(Node v, String path) throws ConfigException {
        if (!(v instanceof ScalarNode s) || isNull(v)) {
            throw error(v, path, "expected a string, found " + describe(v));
        }
        if (s.getValue().isEmpty()) {
            throw error(v, path, "must not be empty");
        }
        return s.getValue();
    }

    String requiredString(Fields f, String key) throws ConfigException {
        if (!f.has(key)) {
            throw error(f.node, f.path, "missing required key " + quote(key));
        }
        return nonEmptyString(f.value(key), f.path(key));
    }

    BigInteger integer(Node v, String path) throws ConfigException {
        if (!(v instanceof ScalarNode s) || isNull(v)) {
            throw error(v, path, "expected an integer, found " + describe(v));
        }
        BigInteger n = parseInteger(s.getValue());
        if (n == null) {
            String hint = LEADING_ZERO.matcher(s.getValue().strip()).matches()
                    ? " (leading zeros are not allowed)" : "";
            throw error(v, path, "expected an integer, found " + describe(v) + hint);
        }
        return n;
    }

    int intInRange(Node v, String path, int min, int max) throws ConfigException {
        BigInteger n = integer(v, path);
        if (n.compareTo(BigInteger.valueOf(min)) < 0 || n.compareTo(BigInteger.valueOf(max)) > 0) {
            throw error(v, path, n + " is out of range (expected " + min + ".." + max + ")");
        }
        return n.intValueExact();
    }

    boolean bool(Node v, String path) throws ConfigException {
        if (v instanceof ScalarNode s && !isNull(v)) {
            switch (s.getValue().toLowerCase(Locale.ROOT)) {
                case "true", "yes", "on":
                    return true;
                case "false", "no", "off":
                    return false;
                default:
                    break;
            }
        }
        throw error(v, path, "expected true or false, found " + describe(v));
    }

    <E> E choice(Node v, String path, String what, E[] values, Function<E, String> spelling)
            throws ConfigException {
        StringBuilder names = new StringBuilder();
        for (E e : values) {
            names.append(names.length() == 0 ? "" : ", ").append(spelling.apply(e));
        }
        if (!(v instanceof ScalarNode s) || isNull(v)) {
            throw error(v, path, "expected one of " + names + ", found " + describe(v));
        }
        for (E e : values) {
            if (spelling.apply(e).equalsIgnoreCase(s.getValue())) {
                return e;
            }
        }
        throw error(v, path, "unknown " + what + " " + quote(s.getValue()) + " (expected one of " + names + ")");
    }

    void classPattern(Node at, String path, String glob) throws ConfigException {
        try {
            ClassPattern.forClass(glob);
        } catch (IllegalArgumentException e) {
            throw error(at, path, "invalid class pattern " + quote(glob) + ": " + e.getMessage());
        }
    }

    static String describe(Node n) {
        if (n == null || isNull(n)) {
            return "nothing";
        }
        if (n instanceof ScalarNode s) {
            return quote(s.getValue());
        }
        if (n instanceof SequenceNode) {
            return "a list";
        }
        return "a mapping";
    }

    static boolean isNull(Node n) {
        return n instanceof ScalarNode && Tag.NULL.equals(n.getTag());
    }

    /** {@code s} in single quotes, cut after 60 characters, control characters escaped. */
    static String quote(String s) {
        int limit = 60;
        boolean cut = s.length() > limit;
        String shown = cut ? s.substring(0, Character.isHighSurrogate(s.charAt(limit - 1)) ? limit - 1 : limit) : s;
        StringBuilder sb = new StringBuilder(shown.length() + 8).append('\'');
        for (int i = 0; i < shown.length(); i++) {
            char c = shown.charAt(i);
            switch (c) {
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (Character.isISOControl(c) || c == '\u2028' || c == '\u2029') {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.append(cut ? "...'" : "'").toString();
    }

    static int line(Mark mark) {
        return mark.getLine() + 1;
    }

    private static String child(String path, String key) {
        return path.isEmpty() ? key : path + "." + key;
    }

    /** A YAML integer in decimal or 0x hex, '_' allowed between digits; null if {@code text} is none. */
    static BigInteger parseInteger(String text) {
        String t = text.strip();
        boolean hex = HEX.matcher(t).matches();
        if (!hex && !DECIMAL.matcher(t).matches()) {
            return null;
        }
        t = t.replace("_", "");
        boolean negative = t.startsWith("-");
        if (t.startsWith("-") || t.startsWith("+")) {
            t = t.substring(1);
        }
        BigInteger n = hex ? new BigInteger(t.substring(2), 16) : new BigInteger(t);
        return negative ? n.negate() : n;
    }

    /** The keys of one YAML mapping, merge keys applied, duplicates rejected. */
    static final class Fields {
        final Node node;
        final String path;
        final LinkedHashMap<String, NodeTuple> entries;

        Fields(Node node, String path, LinkedHashMap<String, NodeTuple> entries) {
            this.node = node;
            this.path = path;
            this.entries = entries;
        }

        boolean has(String key) {
            return entries.containsKey(key);
        }

        Node value(String key) {
            NodeTuple t = entries.get(key);
            return t == null ? null : t.getValueNode();
        }

        Node keyNode(String key) {
            NodeTuple t = entries.get(key);
            return t == null ? null : t.getKeyNode();
        }

        String path(String key) {
            return child(path, key);
        }
    }
}
