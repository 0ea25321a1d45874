package dev.dprof.agent.config;

import static dev.dprof.agent.config.YamlNodes.line;
import static dev.dprof.agent.config.YamlNodes.quote;

import java.io.StringReader;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.events.AliasEvent;
import org.yaml.snakeyaml.events.CollectionStartEvent;
import org.yaml.snakeyaml.events.Event;
import org.yaml.snakeyaml.events.ScalarEvent;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.reader.ReaderException;

/**
 * YAML text to SnakeYAML's node graph ({@link Yaml#compose}, never constructed into objects, so no tag can
 * instantiate a class), within {@link ConfigLoader}'s limits on size, nesting and aliases, every syntax error one
 * line naming the file and the line.
 */
final class YamlComposer {

    private static final String YAML_TAG_PREFIX = "tag:yaml.org,2002:";
    private static final Set<String> ALLOWED_TAGS = Set.of("str", "int", "bool", "null", "float", "map", "seq",
            "merge");

    private YamlComposer() {
    }

    static Node compose(String text, String source) throws ConfigException {
        LoaderOptions options = new LoaderOptions();
        options.setAllowDuplicateKeys(false); // duplicates are reported by Walker, which sees the node graph
        options.setAllowRecursiveKeys(false);
        options.setMaxAliasesForCollections(ConfigLoader.MAX_COLLECTION_ALIASES);
        options.setNestingDepthLimit(ConfigLoader.MAX_DEPTH);
        options.setCodePointLimit(ConfigLoader.MAX_CHARS);
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
                if (depth > ConfigLoader.MAX_DEPTH) {
                    throw new ConfigException(source + ":" + line(ev.getStartMark())
                            + ": YAML nesting is too deep (more than " + ConfigLoader.MAX_DEPTH + " levels)");
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
                        && ++collectionAliases > ConfigLoader.MAX_COLLECTION_ALIASES) {
                    throw new ConfigException(source + ":" + line(ev.getStartMark())
                            + ": too many aliases to lists or mappings (more than "
                            + ConfigLoader.MAX_COLLECTION_ALIASES + ")");
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
}
