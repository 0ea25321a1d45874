package dev.dprof.agent.config;

import static dev.dprof.agent.config.YamlNodes.describe;
import static dev.dprof.agent.config.YamlNodes.isNull;
import static dev.dprof.agent.config.YamlNodes.parseInteger;
import static dev.dprof.agent.config.YamlNodes.quote;

import dev.dprof.agent.config.YamlNodes.Fields;
import java.math.BigInteger;
import java.util.List;
import java.util.OptionalInt;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.ScalarNode;

/**
 * A region's value sources ({@code channel}, {@code key}, {@code participants}, {@code instance}, a collective's
 * {@code rank} and {@code root}): where the woven probe reads a value, checked against what the region's kind
 * allows.
 */
final class ValueSourceReader {

    static final List<String> SOURCE_KEYS = List.of("arg", "field", "getter", "return", "property", "const");
    static final String RETURN_ONLY = "'return' is only allowed for kind receive or a handoff's take, ";

    private final YamlNodes y;

    ValueSourceReader(YamlNodes y) {
        this.y = y;
    }

    ValueSource channel(Node v, String path, RegionKind kind) throws ConfigException {
        if (v instanceof ScalarNode && !isNull(v)) {
            return new ValueSource.Const(y.nonEmptyString(v, path)); // channel: NAME is {const: NAME}
        }
        return valueSource(v, path, kind, false);
    }

    ValueSource participants(Node v, String path, RegionKind kind) throws ConfigException {
        if (v instanceof ScalarNode && !isNull(v)) {
            BigInteger n = parseInteger(((ScalarNode) v).getValue());
            if (n == null) {
                throw y.error(v, path, "expected a positive integer or a value source such as {property: NAME} or"
                        + " {arg: N}, found " + describe(v));
            }
            return new ValueSource.Const(Integer.toString(positiveInt(v, path, n)));
        }
        ValueSource vs = valueSource(v, path, kind, false);
        if (vs instanceof ValueSource.Const c) {
            Node cn = y.fields(v, path).value("const");
            BigInteger n = parseInteger(c.text());
            if (n == null) {
                throw y.error(cn, path + ".const", "expected a positive integer, found " + quote(c.text()));
            }
            return new ValueSource.Const(Integer.toString(positiveInt(cn, path + ".const", n)));
        }
        return vs;
    }

    private int positiveInt(Node at, String path, BigInteger n) throws ConfigException {
        if (n.signum() <= 0 || n.bitLength() > 31) {
            throw y.error(at, path, n + " is out of range (expected 1.." + Integer.MAX_VALUE + ")");
        }
        return n.intValue();
    }

    ValueSource instance(Node v, String path, RegionKind kind) throws ConfigException {
        String expected = "expected {arg: N} (per call) or {property: NAME} (once at start)";
        if (!(v instanceof MappingNode)) {
            throw y.error(v, path, expected + ", found " + describe(v));
        }
        ValueSource vs = valueSource(v, path, kind, false);
        if (!(vs instanceof ValueSource.Arg) && !(vs instanceof ValueSource.Property)) {
            throw y.error(v, path, expected + ", found " + vs.describe());
        }
        return vs;
    }

    /** A rank: a non-negative integer, or a value source other than {@code return}. */
    ValueSource rankSource(Node v, String path) throws ConfigException {
        if (v instanceof ScalarNode && !isNull(v)) {
            BigInteger r = parseInteger(((ScalarNode) v).getValue());
            if (r == null) {
                throw y.error(v, path, "expected a rank (an integer ≥ 0) or a value source such as {property: NAME}"
                        + " or {arg: N}, found " + describe(v));
            }
            return new ValueSource.Const(Integer.toString(nonNegativeInt(v, path, r)));
        }
        ValueSource vs = valueSource(v, path, RegionKind.COLLECTIVE, false);
        if (vs instanceof ValueSource.Const c) {
            Node cn = y.fields(v, path).value("const");
            BigInteger r = parseInteger(c.text());
            if (r == null) {
                throw y.error(cn, path + ".const", "expected a rank (an integer ≥ 0), found " + quote(c.text()));
            }
            return new ValueSource.Const(Integer.toString(nonNegativeInt(cn, path + ".const", r)));
        }
        return vs;
    }

    private int nonNegativeInt(Node at, String path, BigInteger n) throws ConfigException {
        if (n.signum() < 0 || n.bitLength() > 31) {
            throw y.error(at, path, n + " is out of range (expected 0.." + Integer.MAX_VALUE + ")");
        }
        return n.intValue();
    }

    /** @param isKey whether this is the region's {@code key}, the only place {@code return} may appear */
    ValueSource valueSource(Node v, String path, RegionKind kind, boolean isKey) throws ConfigException {
        if (!(v instanceof MappingNode)) {
            throw y.error(v, path, "expected a value source such as {arg: N}, {field: NAME}, {getter: NAME},"
                    + " {property: NAME} or {const: VALUE}, found " + describe(v));
        }
        Fields f = y.fields(v, path);
        y.only(f, SOURCE_KEYS);
        if (f.entries.isEmpty()) {
            throw y.error(v, path, "empty value source (expected one of " + String.join(", ", SOURCE_KEYS) + ")");
        }
        for (String alone : List.of("const", "property", "return")) {
            if (f.has(alone) && f.entries.size() > 1) {
                String other = SOURCE_KEYS.stream().filter(k -> !k.equals(alone) && f.has(k)).findFirst()
                        .orElseThrow();
                throw y.error(v, path, quote(alone) + " cannot be combined with " + quote(other));
            }
        }
        if (f.has("field") && f.has("getter")) {
            throw y.error(v, path, "'field' and 'getter' cannot be combined (read one or the other)");
        }
        if (f.has("return")) {
            if (!isKey) {
                throw y.error(f.keyNode("return"), path, "'return' is only allowed in the key of a receive region");
            }
            if (kind != RegionKind.RECEIVE && kind != RegionKind.HANDOFF) {
                throw y.error(f.keyNode("return"), path, RETURN_ONLY + "not " + kind.yamlName());
            }
            if (!y.bool(f.value("return"), f.path("return"))) {
                throw y.error(f.value("return"), f.path("return"), "must be true (omit 'return' otherwise)");
            }
            return new ValueSource.Return();
        }
        if (f.has("const")) {
            Node cn = f.value("const");
            if (!(cn instanceof ScalarNode) || isNull(cn)) {
                throw y.error(cn, f.path("const"), "expected a string or an integer, found " + describe(cn));
            }
            return new ValueSource.Const(y.nonEmptyString(cn, f.path("const")));
        }
        if (f.has("property")) {
            String name = y.nonEmptyString(f.value("property"), f.path("property"));
            if (!name.chars().noneMatch(c -> Character.isWhitespace(c) || Character.isISOControl(c))) {
                throw y.error(f.value("property"), f.path("property"), quote(name)
                        + " is not a valid property name");
            }
            return new ValueSource.Property(name);
        }
        OptionalInt arg = f.has("arg")
                ? OptionalInt.of(y.intInRange(f.value("arg"), f.path("arg"), 0, ValueSource.MAX_ARG))
                : OptionalInt.empty();
        if (f.has("field")) {
            return new ValueSource.Field(arg, identifier(f.value("field"), f.path("field")));
        }
        if (f.has("getter")) {
            return new ValueSource.Getter(arg, identifier(f.value("getter"), f.path("getter")));
        }
        return new ValueSource.Arg(arg.getAsInt());
    }

    private String identifier(Node v, String path) throws ConfigException {
        String s = y.nonEmptyString(v, path);
        boolean ok = Character.isJavaIdentifierStart(s.codePointAt(0))
                && s.codePoints().allMatch(c -> Character.isJavaIdentifierPart(c)
                        && !Character.isIdentifierIgnorable(c));
        if (!ok) {
            throw y.error(v, path, quote(s) + " is not a valid Java identifier");
        }
        return s;
    }
}
