package dev.dprof.agent.config;

import dev.dprof.format.CollectiveFlavour;
import dev.dprof.format.HandoffRegions;
import dev.dprof.format.OwnRegions;
import java.io.IOException;
import java.io.StringReader;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;

import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.events.AliasEvent;
import org.yaml.snakeyaml.events.CollectionStartEvent;
import org.yaml.snakeyaml.events.Event;
import org.yaml.snakeyaml.events.ScalarEvent;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;
import org.yaml.snakeyaml.reader.ReaderException;

/**
 * Reads the agent's YAML configuration file (format: {@code docs/CONFIG.md}) into an {@link AgentConfig}.
 *
 * <p>Every problem, whatever it is, comes out as one {@link ConfigException} whose message is one line naming the
 * file and, where the problem has a place, the line: {@code dprof.yaml:12: regions[1].kind: unknown kind 'sned'
 * (expected one of plain, send, receive, barrier, collective, progress, handoff)}. No other exception escapes for any file content.
 *
 * <p>The file is read with SnakeYAML's node API ({@link Yaml#compose}), never constructed into objects, so no tag
 * can instantiate a class. Anchors and aliases work (and {@code <<} merge keys), within limits: at most
 * {@value #MAX_COLLECTION_ALIASES} aliases to lists or mappings, no alias inside the anchor it refers to, at most
 * {@value #MAX_DEPTH} levels of nesting, at most {@value #MAX_CHARS} characters.
 */
public final class ConfigLoader {

    /** The largest file accepted, in bytes (by {@link #load}) or characters (by {@link #parse}). */
    public static final int MAX_CHARS = 1 << 20;
    /** The most aliases to lists or mappings a file may use (guards against "billion laughs" files). */
    public static final int MAX_COLLECTION_ALIASES = 64;
    /** The deepest nesting of lists and mappings a file may have (the format needs 4). */
    public static final int MAX_DEPTH = 16;

    static final List<String> TOP_KEYS = List.of("version", "out", "clock", "drainIntervalMs", "ringEvents",
            "annotations", "exclude", "calibration", "handoffs", "regions", "diskReserveMiB");
    static final List<String> CALIBRATION_KEYS = List.of("base", "intervalSec", "keyFile", "insecure");
    static final List<String> REGION_KEYS = List.of("name", "class", "method", "descriptor", "kind", "id", "channel",
            "key", "participants", "instance", "flavour", "rank", "root", "side");
    private static final String RETURN_ONLY = "'return' is only allowed for kind receive or a handoff's take, ";
    static final List<String> HANDOFF_KINDS = java.util.Arrays.stream(HandoffRegions.Kind.values())
            .map(HandoffRegions.Kind::yamlName).toList();
    static final List<String> SOURCE_KEYS = List.of("arg", "field", "getter", "return", "property", "const");

    private static final String YAML_TAG_PREFIX = "tag:yaml.org,2002:";
    private static final Set<String> ALLOWED_TAGS = Set.of("str", "int", "bool", "null", "float", "map", "seq",
            "merge");
    private static final Pattern DECIMAL = Pattern.compile("[-+]?(?:0|[1-9][0-9_]*)");
    private static final Pattern HEX = Pattern.compile("[-+]?0x[0-9a-fA-F_]+");
    private static final Pattern LEADING_ZERO = Pattern.compile("[-+]?0[0-9_]+");

    private ConfigLoader() {
    }

    /**
     * Reads and checks the configuration file {@code file}. An empty file (or one holding only comments) gives
     * {@link AgentConfig#defaults()}. Messages name the file as {@code file.toString()}.
     *
     * @throws ConfigException for a missing, unreadable, too large or invalid file
     */
    public static AgentConfig load(Path file) throws ConfigException {
        Objects.requireNonNull(file, "file");
        String source = file.toString();
        if (Files.isDirectory(file)) {
            throw new ConfigException(source + ": cannot read config file: is a directory");
        }
        byte[] bytes;
        try {
            long size = Files.size(file);
            if (size > MAX_CHARS) {
                throw new ConfigException(source + ": config file is too large (" + size + " bytes, limit "
                        + MAX_CHARS + ")");
            }
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new ConfigException(source + ": config file not found", e);
        } catch (AccessDeniedException e) {
            throw new ConfigException(source + ": cannot read config file: permission denied", e);
        } catch (IOException | SecurityException e) {
            throw new ConfigException(source + ": cannot read config file: " + e, e);
        }
        if (bytes.length > MAX_CHARS) {
            throw new ConfigException(source + ": config file is too large (" + bytes.length + " bytes, limit "
                    + MAX_CHARS + ")");
        }
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw new ConfigException(source + ": cannot read config file: not valid UTF-8 text", e);
        }
        return parse(text, source);
    }

    /**
     * Checks the YAML text {@code yaml}; messages name it {@code sourceName}. Empty text (or only comments) gives
     * {@link AgentConfig#defaults()}.
     *
     * @throws ConfigException for invalid text
     */
    public static AgentConfig parse(String yaml, String sourceName) throws ConfigException {
        Objects.requireNonNull(yaml, "yaml");
        Objects.requireNonNull(sourceName, "sourceName");
        if (yaml.length() > MAX_CHARS) {
            throw new ConfigException(sourceName + ": config file is too large (" + yaml.length()
                    + " characters, limit " + MAX_CHARS + ")");
        }
        if (yaml.startsWith("\uFEFF")) {
            yaml = yaml.substring(1);
        }
        Node root = compose(yaml, sourceName);
        if (root == null || isNull(root)) {
            return AgentConfig.defaults();
        }
        try {
            return new Walker(sourceName).config(root);
        } catch (RuntimeException e) {
            // Not expected for any input; the agent must still never crash the host because of its configuration.
            throw new ConfigException(sourceName + ": internal error while reading the configuration: " + e, e);
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // YAML text -> node graph

    private static Node compose(String text, String source) throws ConfigException {
        LoaderOptions options = new LoaderOptions();
        options.setAllowDuplicateKeys(false); // duplicates are reported by Walker, which sees the node graph
        options.setAllowRecursiveKeys(false);
        options.setMaxAliasesForCollections(MAX_COLLECTION_ALIASES);
        options.setNestingDepthLimit(MAX_DEPTH);
        options.setCodePointLimit(MAX_CHARS);
        options.setMergeOnCompose(false); // merge keys are applied by Walker, after the duplicate check
        options.setProcessComments(false);
        Yaml yaml = new Yaml(options);
        try {
            precheck(yaml.parse(new StringReader(text)), source);
            return yaml.compose(new StringReader(text));
        } catch (MarkedYAMLException e) {
            throw new ConfigException(syntaxMessage(e, source), e);
        } catch (ReaderException e) {
            throw new ConfigException(source + ":" + lineAtCodePoint(text, e.getPosition()) + ": invalid character "
                    + String.format("U+%04X", e.getCodePoint()) + " (YAML does not allow it here)", e);
        } catch (YAMLException e) {
            throw new ConfigException(source + ": YAML error: " + firstLine(e.getMessage()), e);
        } catch (RuntimeException e) {
            throw new ConfigException(source + ": YAML error: " + e, e);
        }
    }

    /**
     * Walks the event stream before composing: finds recursive aliases, too many aliases to collections, too deep
     * nesting and unsupported tags, and reports them with their line (SnakeYAML's own limits carry no line).
     */
    private static void precheck(Iterable<Event> events, String source) throws ConfigException {
        Map<String, Boolean> anchorIsCollection = new HashMap<>();
        Set<String> openAnchors = new HashSet<>();
        Deque<String> stack = new ArrayDeque<>();
        int depth = 0;
        int collectionAliases = 0;
        Mark lastMark = null;
        Iterator<Event> it = events.iterator();
        while (true) {
            Event ev;
            try {
                if (!it.hasNext()) {
                    break;
                }
                ev = it.next();
            } catch (MarkedYAMLException | ReaderException e) {
                throw e;
            } catch (YAMLException e) {
                // A few SnakeYAML errors carry no mark: place them after the last event that parsed.
                int line = lastMark == null ? 1 : line(lastMark);
                throw new ConfigException(source + ":" + line + ": YAML syntax error: " + firstLine(e.getMessage()),
                        e);
            }
            lastMark = ev.getEndMark();
            if (ev instanceof CollectionStartEvent start) {
                checkTag(start.getTag(), ev, source);
                depth++;
                if (depth > MAX_DEPTH) {
                    throw new ConfigException(source + ":" + line(ev.getStartMark())
                            + ": YAML nesting is too deep (more than " + MAX_DEPTH + " levels)");
                }
                String anchor = start.getAnchor();
                stack.push(anchor == null ? "" : anchor);
                if (anchor != null) {
                    anchorIsCollection.put(anchor, true);
                    openAnchors.add(anchor);
                }
            } else if (ev.is(Event.ID.MappingEnd) || ev.is(Event.ID.SequenceEnd)) {
                depth--;
                String anchor = stack.isEmpty() ? "" : stack.pop();
                if (!anchor.isEmpty()) {
                    openAnchors.remove(anchor);
                }
            } else if (ev instanceof ScalarEvent scalar) {
                checkTag(scalar.getTag(), ev, source);
                if (scalar.getAnchor() != null) {
                    anchorIsCollection.put(scalar.getAnchor(), false);
                    openAnchors.remove(scalar.getAnchor());
                }
            } else if (ev instanceof AliasEvent alias) {
                String anchor = alias.getAnchor();
                if (openAnchors.contains(anchor)) {
                    throw new ConfigException(source + ":" + line(ev.getStartMark()) + ": recursive alias '*"
                            + anchor + "' (it refers to a list or mapping that contains it)");
                }
                if (Boolean.TRUE.equals(anchorIsCollection.get(anchor))
                        && ++collectionAliases > MAX_COLLECTION_ALIASES) {
                    throw new ConfigException(source + ":" + line(ev.getStartMark())
                            + ": too many aliases to lists or mappings (more than " + MAX_COLLECTION_ALIASES + ")");
                }
            }
        }
    }

    private static void checkTag(String tag, Event ev, String source) throws ConfigException {
        if (tag == null || tag.equals("!")) {
            return;
        }
        if (tag.startsWith(YAML_TAG_PREFIX) && ALLOWED_TAGS.contains(tag.substring(YAML_TAG_PREFIX.length()))) {
            return;
        }
        String shown = tag.startsWith(YAML_TAG_PREFIX) ? "!!" + tag.substring(YAML_TAG_PREFIX.length()) : tag;
        throw new ConfigException(source + ":" + line(ev.getStartMark()) + ": unsupported YAML tag "
                + quote(shown));
    }

    private static String syntaxMessage(MarkedYAMLException e, String source) {
        Mark problemMark = e.getProblemMark();
        Mark contextMark = e.getContextMark();
        Mark mark = problemMark != null ? problemMark : contextMark;
        String where = mark == null ? source : source + ":" + line(mark);
        String problem = clean(e.getProblem());
        String context = clean(e.getContext());
        if (context != null && context.startsWith("expected a single document")) {
            return where + ": only one YAML document is allowed (found a second '---' document)";
        }
        StringBuilder sb = new StringBuilder(where).append(": YAML syntax error: ");
        sb.append(problem != null ? problem : context != null ? context : "invalid YAML");
        if (problem != null && context != null && contextMark != null && problemMark != null
                && contextMark.getLine() != problemMark.getLine()) {
            sb.append(" (").append(context).append(" at line ").append(line(contextMark)).append(')');
        }
        return sb.toString();
    }

    private static String clean(String s) {
        if (s == null) {
            return null;
        }
        String c = s.replaceAll("[\\p{Cntrl}\\s]+", " ").strip();
        return c.isEmpty() ? null : c;
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "invalid YAML";
        }
        int nl = s.indexOf('\n');
        return (nl < 0 ? s : s.substring(0, nl)).strip();
    }

    private static int line(Mark mark) {
        return mark.getLine() + 1;
    }

    private static int lineAtCodePoint(String text, int codePointIndex) {
        int line = 1;
        int cps = 0;
        for (int i = 0; i < text.length() && cps < codePointIndex; cps++) {
            int cp = text.codePointAt(i);
            if (cp == '\n') {
                line++;
            }
            i += Character.charCount(cp);
        }
        return line;
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

    // ---------------------------------------------------------------------------------------------------------
    // node graph -> records

    /** The keys of one YAML mapping, merge keys applied, duplicates rejected. */
    private static final class Fields {
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

    private static String child(String path, String key) {
        return path.isEmpty() ? key : path + "." + key;
    }

    private static final class Walker {
        private final String source;
        /** Each mapping's keys, merges applied, computed once: aliases share nodes, so merges could repeat. */
        private final Map<Node, LinkedHashMap<String, NodeTuple>> flattened = new IdentityHashMap<>();

        Walker(String source) {
            this.source = source;
        }

        ConfigException error(Node at, String path, String message) {
            Mark mark = at == null ? null : at.getStartMark();
            String where = mark == null ? source : source + ":" + line(mark);
            return new ConfigException(where + ": " + (path.isEmpty() ? "" : path + ": ") + message);
        }

        // ----- the file

        AgentConfig config(Node root) throws ConfigException {
            if (!(root instanceof MappingNode)) {
                throw error(root, "", "the top level must be a mapping of options (version, out, clock, ...), found "
                        + describe(root));
            }
            Fields f = fields(root, "");
            only(f, TOP_KEYS);

            int version = AgentConfig.VERSION;
            if (f.has("version")) {
                BigInteger v = integer(f.value("version"), "version");
                if (!v.equals(BigInteger.valueOf(AgentConfig.VERSION))) {
                    throw error(f.value("version"), "version", "unsupported config version " + v
                            + " (only version " + AgentConfig.VERSION + " is known)");
                }
            }
            Path out = Path.of(AgentConfig.DEFAULT_OUT);
            if (f.has("out")) {
                String text = nonEmptyString(f.value("out"), "out");
                try {
                    out = Path.of(text);
                } catch (InvalidPathException e) {
                    throw error(f.value("out"), "out", "invalid path " + quote(text) + ": " + e.getReason());
                }
            }
            ClockChoice clock = f.has("clock")
                    ? choice(f.value("clock"), "clock", "clock", ClockChoice.values(), ClockChoice::yamlName)
                    : AgentConfig.DEFAULT_CLOCK;
            String clockProblem = clock.problemOn(System.getProperty("os.arch", ""));
            if (clockProblem != null) {
                throw error(f.value("clock"), "clock", clockProblem);
            }
            int drain = f.has("drainIntervalMs")
                    ? intInRange(f.value("drainIntervalMs"), "drainIntervalMs", AgentConfig.MIN_DRAIN_INTERVAL_MS,
                            AgentConfig.MAX_DRAIN_INTERVAL_MS)
                    : AgentConfig.DEFAULT_DRAIN_INTERVAL_MS;
            int ring = f.has("ringEvents") ? ringEvents(f.value("ringEvents")) : AgentConfig.DEFAULT_RING_EVENTS;
            boolean annotations = !f.has("annotations") || bool(f.value("annotations"), "annotations");
            List<String> exclude = f.has("exclude") ? exclude(f.value("exclude")) : List.of();
            Optional<CalibrationSpec> calibration = f.has("calibration")
                    ? calibration(f.value("calibration"))
                    : Optional.empty();
            Set<HandoffRegions.Kind> handoffs = f.has("handoffs") ? handoffs(f.value("handoffs"))
                    : AgentConfig.ALL_HANDOFFS;
            List<RegionSpec> regions = f.has("regions") ? regions(f.value("regions")) : List.of();
            int reserve = f.has("diskReserveMiB")
                    ? intInRange(f.value("diskReserveMiB"), "diskReserveMiB", AgentConfig.MIN_DISK_RESERVE_MIB,
                            AgentConfig.MAX_DISK_RESERVE_MIB)
                    : AgentConfig.DEFAULT_DISK_RESERVE;
            return new AgentConfig(version, out, clock, drain, ring, annotations, exclude, calibration, regions,
                    handoffs, reserve);
        }

        /** {@code auto} (every kind), {@code off} (none), or the list of kinds that stay on. */
        private Set<HandoffRegions.Kind> handoffs(Node v) throws ConfigException {
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
                throw error(v, "handoffs", "expected auto, off or a list of kinds (" + kinds + "), found "
                        + describe(v));
            }
            List<Node> items = list(v, "handoffs");
            Set<HandoffRegions.Kind> on = java.util.EnumSet.noneOf(HandoffRegions.Kind.class);
            for (int i = 0; i < items.size(); i++) {
                String path = "handoffs[" + i + "]";
                HandoffRegions.Kind kind = choice(items.get(i), path, "handoff kind", HandoffRegions.Kind.values(),
                        HandoffRegions.Kind::yamlName);
                if (!on.add(kind)) {
                    throw error(items.get(i), path, "duplicate handoff kind " + quote(kind.yamlName()));
                }
            }
            return on;
        }

        private int ringEvents(Node v) throws ConfigException {
            String expected = "expected a power of two in " + AgentConfig.MIN_RING_EVENTS + ".."
                    + AgentConfig.MAX_RING_EVENTS;
            BigInteger n = integer(v, "ringEvents");
            if (n.compareTo(BigInteger.valueOf(AgentConfig.MIN_RING_EVENTS)) < 0
                    || n.compareTo(BigInteger.valueOf(AgentConfig.MAX_RING_EVENTS)) > 0) {
                throw error(v, "ringEvents", n + " is out of range (" + expected + ")");
            }
            if (n.bitCount() != 1) {
                throw error(v, "ringEvents", n + " is not a power of two (" + expected + ")");
            }
            return n.intValueExact();
        }

        private List<String> exclude(Node v) throws ConfigException {
            if (isNull(v)) {
                return List.of();
            }
            List<String> out = new ArrayList<>();
            List<Node> items = list(v, "exclude");
            for (int i = 0; i < items.size(); i++) {
                String path = "exclude[" + i + "]";
                String glob = nonEmptyString(items.get(i), path);
                classPattern(items.get(i), path, glob);
                out.add(glob);
            }
            return out;
        }

        private Optional<CalibrationSpec> calibration(Node v) throws ConfigException {
            if (isNull(v)) {
                return Optional.empty();
            }
            Fields f = fields(v, "calibration");
            only(f, CALIBRATION_KEYS);
            if (!f.has("base")) {
                throw error(v, "calibration", "missing required key 'base' (host:port of the calibration base)");
            }
            Node baseNode = f.value("base");
            String base = nonEmptyString(baseNode, "calibration.base");
            String host;
            String portText;
            if (base.startsWith("[")) {
                int close = base.indexOf(']');
                if (close < 0 || close + 1 >= base.length() || base.charAt(close + 1) != ':') {
                    throw error(baseNode, "calibration.base", "expected [ipv6-address]:port, found " + quote(base));
                }
                host = base.substring(1, close);
                portText = base.substring(close + 2);
            } else {
                int colon = base.lastIndexOf(':');
                if (colon < 0) {
                    throw error(baseNode, "calibration.base", "expected host:port, found " + quote(base)
                            + " (no port)");
                }
                host = base.substring(0, colon);
                portText = base.substring(colon + 1);
                if (host.indexOf(':') >= 0) {
                    throw error(baseNode, "calibration.base", "write an IPv6 address as [address]:port, found "
                            + quote(base));
                }
            }
            if (host.isEmpty()) {
                throw error(baseNode, "calibration.base", "expected host:port, found " + quote(base) + " (no host)");
            }
            if (!host.chars().allMatch(c -> c > ' ' && c < 0x7f && c != '/' && c != '@')) {
                throw error(baseNode, "calibration.base", "invalid host " + quote(host));
            }
            if (portText.isEmpty()) {
                throw error(baseNode, "calibration.base", "expected host:port, found " + quote(base) + " (no port)");
            }
            if (!portText.chars().allMatch(c -> c >= '0' && c <= '9') || portText.length() > 9) {
                throw error(baseNode, "calibration.base", "port " + quote(portText) + " is not a number 1..65535");
            }
            int port = Integer.parseInt(portText);
            if (port < 1 || port > 65535) {
                throw error(baseNode, "calibration.base", "port " + port + " is out of range (expected 1..65535)");
            }
            int interval = f.has("intervalSec")
                    ? intInRange(f.value("intervalSec"), "calibration.intervalSec", 1, Integer.MAX_VALUE)
                    : CalibrationSpec.DEFAULT_INTERVAL_SEC;
            Optional<Path> keyFile = Optional.empty();
            if (f.has("keyFile")) {
                String text = nonEmptyString(f.value("keyFile"), "calibration.keyFile");
                try {
                    keyFile = Optional.of(Path.of(text));
                } catch (InvalidPathException e) {
                    throw error(f.value("keyFile"), "calibration.keyFile", "invalid path " + quote(text) + ": "
                            + e.getReason());
                }
            }
            boolean insecure = f.has("insecure") && bool(f.value("insecure"), "calibration.insecure");
            if (keyFile.isPresent() && insecure) {
                throw error(f.value("insecure"), "calibration.insecure", "insecure: true and a keyFile exclude each "
                        + "other (a key authenticates the calibration; insecure runs without one)");
            }
            return Optional.of(new CalibrationSpec(host, port, interval, keyFile, insecure));
        }

        // ----- regions

        private List<RegionSpec> regions(Node v) throws ConfigException {
            if (isNull(v)) {
                return List.of();
            }
            List<Node> items = list(v, "regions");
            List<RegionSpec> out = new ArrayList<>(items.size());
            Map<String, RegionSpec> byName = new HashMap<>();
            Map<Integer, RegionSpec> byId = new HashMap<>();
            for (int i = 0; i < items.size(); i++) {
                String path = "regions[" + i + "]";
                Node item = items.get(i);
                RegionSpec r = region(item, path);
                Fields f = fields(item, path);
                RegionSpec sameName = byName.putIfAbsent(r.name(), r);
                if (sameName != null) {
                    String kinds = sameName.kind() == r.kind() ? ""
                            : " as kind " + sameName.kind().yamlName() + "; here kind " + r.kind().yamlName();
                    throw error(f.value("name"), path + ".name", "duplicate region name " + quote(r.name())
                            + " (first defined at line " + sameName.line() + kinds + ")");
                }
                Optional<String> own = OwnRegions.ownerOf(r.name());
                if (own.isPresent()) {
                    throw error(f.value("name"), path + ".name", "region name " + quote(r.name()) + " is taken by "
                            + own.get() + "; choose another name");
                }
                if (r.id().isPresent()) {
                    RegionSpec sameId = byId.putIfAbsent(r.id().getAsInt(), r);
                    if (sameId != null) {
                        throw error(f.value("id"), path + ".id", "duplicate region id " + r.id().getAsInt()
                                + " (already used by region " + quote(sameId.name()) + " at line "
                                + sameId.line() + ")");
                    }
                }
                out.add(r);
            }
            return out;
        }

        private RegionSpec region(Node n, String path) throws ConfigException {
            Fields f = fields(n, path);
            only(f, REGION_KEYS);
            String name = requiredString(f, "name");
            String cls = requiredString(f, "class");
            String method = requiredString(f, "method");
            classPattern(f.value("class"), f.path("class"), cls);
            try {
                ClassPattern.forMethod(method);
            } catch (IllegalArgumentException e) {
                throw error(f.value("method"), f.path("method"), "invalid method pattern " + quote(method) + ": "
                        + e.getMessage());
            }
            Optional<String> descriptor = Optional.empty();
            if (f.has("descriptor")) {
                Node dn = f.value("descriptor");
                String d = nonEmptyString(dn, f.path("descriptor"));
                String problem = MethodDescriptors.problem(d);
                if (problem != null) {
                    throw error(dn, f.path("descriptor"), "invalid method descriptor " + quote(d) + ": " + problem);
                }
                if (method.equals("<init>") && !MethodDescriptors.returnsVoid(d)) {
                    throw error(dn, f.path("descriptor"), "invalid method descriptor " + quote(d)
                            + ": a constructor ('<init>') returns V");
                }
                descriptor = Optional.of(d);
            }
            RegionKind kind = f.has("kind")
                    ? choice(f.value("kind"), f.path("kind"), "kind", RegionKind.values(), RegionKind::yamlName)
                    : RegionKind.PLAIN;
            OptionalInt id = f.has("id")
                    ? OptionalInt.of(intInRange(f.value("id"), f.path("id"), 1, RegionSpec.MAX_ID))
                    : OptionalInt.empty();

            notAllowed(f, "channel", kind, kind.hasChannel(), "send, receive, handoff");
            notAllowed(f, "key", kind, kind.needsKey(), "send, receive, barrier, collective, handoff");
            notAllowed(f, "side", kind, kind == RegionKind.HANDOFF, "handoff");
            Optional<RegionSpec.HandoffSide> side = Optional.empty();
            if (kind == RegionKind.HANDOFF) {
                if (!f.has("side")) {
                    throw error(n, path, "missing required key 'side' for kind handoff (put or take)");
                }
                side = Optional.of(choice(f.value("side"), f.path("side"), "side", RegionSpec.HandoffSide.values(),
                        RegionSpec.HandoffSide::yamlName));
            }
            notAllowed(f, "participants", kind, kind.isCollective(), "barrier, collective");
            notAllowed(f, "flavour", kind, kind == RegionKind.COLLECTIVE, "collective");
            if (kind.needsKey() && !f.has("key")) {
                throw error(n, path, "missing required key 'key' for kind " + kind.yamlName()
                        + (kind.isCollective() ? " (the " + kind.yamlName() + " instance key)"
                        : kind == RegionKind.HANDOFF ? " (what identifies the thing handed over)" : " (the message key)"));
            }
            if (kind.isCollective() && !f.has("participants")) {
                throw error(n, path, "missing required key 'participants' for kind " + kind.yamlName());
            }
            Optional<RegionSpec.Collective> collective = kind == RegionKind.COLLECTIVE
                    ? Optional.of(collective(f, n, path)) : Optional.empty();
            if (kind != RegionKind.COLLECTIVE) {
                notAllowed(f, "rank", kind, false, "collective");
                notAllowed(f, "root", kind, false, "collective");
            }

            Optional<ValueSource> channel = Optional.empty();
            if (f.has("channel")) {
                channel = Optional.of(channel(f.value("channel"), f.path("channel"), kind));
            } else if (kind.hasChannel()) {
                channel = Optional.of(new ValueSource.Const(name));
            }
            Optional<ValueSource> key = f.has("key")
                    ? Optional.of(valueSource(f.value("key"), f.path("key"), kind, true))
                    : Optional.empty();
            if (key.isPresent() && key.get() instanceof ValueSource.Return
                    && side.orElse(null) == RegionSpec.HandoffSide.PUT) {
                throw error(f.value("key"), f.path("key"), RETURN_ONLY + "not a handoff's put (it is recorded on entry)");
            }
            Optional<ValueSource> participants = f.has("participants")
                    ? Optional.of(participants(f.value("participants"), f.path("participants"), kind))
                    : Optional.empty();
            Optional<ValueSource> instance = f.has("instance")
                    ? Optional.of(instance(f.value("instance"), f.path("instance"), kind))
                    : Optional.empty();
            return new RegionSpec(name, cls, method, descriptor, kind, id, channel, key, participants, instance,
                    line(n.getStartMark()), collective, side);
        }

        /** A collective's flavour and, as the flavour needs them, where its rank and its root come from. */
        private RegionSpec.Collective collective(Fields f, Node n, String path) throws ConfigException {
            if (!f.has("flavour")) {
                throw error(n, path, "missing required key 'flavour' for kind collective (one of "
                        + String.join(", ", CollectiveFlavour.NAMES) + ")");
            }
            String name = choice(f.value("flavour"), f.path("flavour"), "flavour",
                    CollectiveFlavour.NAMES.toArray(new String[0]), s -> s);
            CollectiveFlavour flavour = CollectiveFlavour.ofName(name);
            String why = " (flavour " + name + ")";
            if (f.has("rank") && !flavour.ranked) {
                throw error(f.keyNode("rank"), f.path("rank"), "not allowed for flavour " + name
                        + ": its order does not depend on ranks");
            }
            if (f.has("root") && !flavour.rooted) {
                throw error(f.keyNode("root"), f.path("root"), "not allowed for flavour " + name + ": it has no root");
            }
            if (flavour.ranked && !f.has("rank")) {
                throw error(n, path, "missing required key 'rank' for kind collective" + why
                        + " (this participant's rank, 0 .. participants − 1)");
            }
            if (flavour.rooted && !f.has("root")) {
                throw error(n, path, "missing required key 'root' for kind collective" + why + " (the root's rank)");
            }
            Optional<ValueSource> rank = f.has("rank")
                    ? Optional.of(rankSource(f.value("rank"), f.path("rank"))) : Optional.empty();
            Optional<ValueSource> root = f.has("root")
                    ? Optional.of(rankSource(f.value("root"), f.path("root"))) : Optional.empty();
            return new RegionSpec.Collective(flavour, rank, root);
        }

        /** A rank: a non-negative integer, or a value source other than {@code return}. */
        private ValueSource rankSource(Node v, String path) throws ConfigException {
            if (v instanceof ScalarNode && !isNull(v)) {
                BigInteger r = parseInteger(((ScalarNode) v).getValue());
                if (r == null) {
                    throw error(v, path, "expected a rank (an integer ≥ 0) or a value source such as {property: NAME}"
                            + " or {arg: N}, found " + describe(v));
                }
                return new ValueSource.Const(Integer.toString(nonNegativeInt(v, path, r)));
            }
            ValueSource vs = valueSource(v, path, RegionKind.COLLECTIVE, false);
            if (vs instanceof ValueSource.Const c) {
                Node cn = fields(v, path).value("const");
                BigInteger r = parseInteger(c.text());
                if (r == null) {
                    throw error(cn, path + ".const", "expected a rank (an integer ≥ 0), found " + quote(c.text()));
                }
                return new ValueSource.Const(Integer.toString(nonNegativeInt(cn, path + ".const", r)));
            }
            return vs;
        }

        private int nonNegativeInt(Node at, String path, BigInteger n) throws ConfigException {
            if (n.signum() < 0 || n.bitLength() > 31) {
                throw error(at, path, n + " is out of range (expected 0.." + Integer.MAX_VALUE + ")");
            }
            return n.intValue();
        }

        private void notAllowed(Fields f, String key, RegionKind kind, boolean allowed, String kinds)
                throws ConfigException {
            if (f.has(key) && !allowed) {
                throw error(f.keyNode(key), f.path(key), "not allowed for kind " + kind.yamlName() + " (only for "
                        + kinds + ")");
            }
        }

        private String requiredString(Fields f, String key) throws ConfigException {
            if (!f.has(key)) {
                throw error(f.node, f.path, "missing required key " + quote(key));
            }
            return nonEmptyString(f.value(key), f.path(key));
        }

        private void classPattern(Node at, String path, String glob) throws ConfigException {
            try {
                ClassPattern.forClass(glob);
            } catch (IllegalArgumentException e) {
                throw error(at, path, "invalid class pattern " + quote(glob) + ": " + e.getMessage());
            }
        }

        // ----- value sources

        private ValueSource channel(Node v, String path, RegionKind kind) throws ConfigException {
            if (v instanceof ScalarNode && !isNull(v)) {
                return new ValueSource.Const(nonEmptyString(v, path)); // channel: NAME is {const: NAME}
            }
            return valueSource(v, path, kind, false);
        }

        private ValueSource participants(Node v, String path, RegionKind kind) throws ConfigException {
            if (v instanceof ScalarNode && !isNull(v)) {
                BigInteger n = parseInteger(((ScalarNode) v).getValue());
                if (n == null) {
                    throw error(v, path, "expected a positive integer or a value source such as {property: NAME} or"
                            + " {arg: N}, found " + describe(v));
                }
                return new ValueSource.Const(Integer.toString(positiveInt(v, path, n)));
            }
            ValueSource vs = valueSource(v, path, kind, false);
            if (vs instanceof ValueSource.Const c) {
                Node cn = fields(v, path).value("const");
                BigInteger n = parseInteger(c.text());
                if (n == null) {
                    throw error(cn, path + ".const", "expected a positive integer, found " + quote(c.text()));
                }
                return new ValueSource.Const(Integer.toString(positiveInt(cn, path + ".const", n)));
            }
            return vs;
        }

        private int positiveInt(Node at, String path, BigInteger n) throws ConfigException {
            if (n.signum() <= 0 || n.bitLength() > 31) {
                throw error(at, path, n + " is out of range (expected 1.." + Integer.MAX_VALUE + ")");
            }
            return n.intValue();
        }

        private ValueSource instance(Node v, String path, RegionKind kind) throws ConfigException {
            String expected = "expected {arg: N} (per call) or {property: NAME} (once at start)";
            if (!(v instanceof MappingNode)) {
                throw error(v, path, expected + ", found " + describe(v));
            }
            ValueSource vs = valueSource(v, path, kind, false);
            if (!(vs instanceof ValueSource.Arg) && !(vs instanceof ValueSource.Property)) {
                throw error(v, path, expected + ", found " + vs.describe());
            }
            return vs;
        }

        /** @param isKey whether this is the region's {@code key}, the only place {@code return} may appear */
        private ValueSource valueSource(Node v, String path, RegionKind kind, boolean isKey) throws ConfigException {
            if (!(v instanceof MappingNode)) {
                throw error(v, path, "expected a value source such as {arg: N}, {field: NAME}, {getter: NAME},"
                        + " {property: NAME} or {const: VALUE}, found " + describe(v));
            }
            Fields f = fields(v, path);
            only(f, SOURCE_KEYS);
            if (f.entries.isEmpty()) {
                throw error(v, path, "empty value source (expected one of " + String.join(", ", SOURCE_KEYS) + ")");
            }
            for (String alone : List.of("const", "property", "return")) {
                if (f.has(alone) && f.entries.size() > 1) {
                    String other = SOURCE_KEYS.stream().filter(k -> !k.equals(alone) && f.has(k)).findFirst()
                            .orElseThrow();
                    throw error(v, path, quote(alone) + " cannot be combined with " + quote(other));
                }
            }
            if (f.has("field") && f.has("getter")) {
                throw error(v, path, "'field' and 'getter' cannot be combined (read one or the other)");
            }
            if (f.has("return")) {
                if (!isKey) {
                    throw error(f.keyNode("return"), path, "'return' is only allowed in the key of a receive region");
                }
                if (kind != RegionKind.RECEIVE && kind != RegionKind.HANDOFF) {
                    throw error(f.keyNode("return"), path, RETURN_ONLY + "not " + kind.yamlName());
                }
                if (!bool(f.value("return"), f.path("return"))) {
                    throw error(f.value("return"), f.path("return"), "must be true (omit 'return' otherwise)");
                }
                return new ValueSource.Return();
            }
            if (f.has("const")) {
                Node cn = f.value("const");
                if (!(cn instanceof ScalarNode) || isNull(cn)) {
                    throw error(cn, f.path("const"), "expected a string or an integer, found " + describe(cn));
                }
                return new ValueSource.Const(nonEmptyString(cn, f.path("const")));
            }
            if (f.has("property")) {
                String name = nonEmptyString(f.value("property"), f.path("property"));
                if (!name.chars().noneMatch(c -> Character.isWhitespace(c) || Character.isISOControl(c))) {
                    throw error(f.value("property"), f.path("property"), quote(name)
                            + " is not a valid property name");
                }
                return new ValueSource.Property(name);
            }
            OptionalInt arg = f.has("arg")
                    ? OptionalInt.of(intInRange(f.value("arg"), f.path("arg"), 0, ValueSource.MAX_ARG))
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
            String s = nonEmptyString(v, path);
            boolean ok = Character.isJavaIdentifierStart(s.codePointAt(0))
                    && s.codePoints().allMatch(c -> Character.isJavaIdentifierPart(c)
                            && !Character.isIdentifierIgnorable(c));
            if (!ok) {
                throw error(v, path, quote(s) + " is not a valid Java identifier");
            }
            return s;
        }

        // ----- typed access

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
}
