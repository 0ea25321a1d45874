package dev.dprof.agent.config;

import static dev.dprof.agent.config.YamlNodes.isNull;
import static dev.dprof.agent.config.YamlNodes.quote;

import dev.dprof.agent.config.YamlNodes.Fields;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.nodes.Node;

/** The {@code traceWindows:} section: {@code every} and {@code length} as durations ({@code 500ms}, {@code 10s}, {@code 10m}, {@code 1h}). */
final class TraceWindowsReader {
    static final List<String> KEYS = List.of("every", "length");
    private static final Pattern DURATION = Pattern.compile("([0-9]{1,9})\\s*(ms|s|m|h)");
    /** The shortest length: a trace window holds at least a drainer's pass or two. */
    static final long MIN_LENGTH_MS = 100;
    /** The longest period: a week. */
    static final long MAX_EVERY_MS = 7L * 24 * 3600 * 1000;

    private final YamlNodes y;

    TraceWindowsReader(YamlNodes y) {
        this.y = y;
    }

    Optional<TraceWindows> read(Node v) throws ConfigException {
        if (isNull(v)) {
            return Optional.empty();
        }
        Fields f = y.fields(v, "traceWindows");
        y.only(f, KEYS);
        for (String key : KEYS) {
            if (!f.has(key)) {
                throw y.error(v, "traceWindows", "missing required key '" + key + "' (e.g. {every: 10m, length: 10s})");
            }
        }
        long every = duration(f.value("every"), "traceWindows.every");
        long length = duration(f.value("length"), "traceWindows.length");
        if (length < MIN_LENGTH_MS) {
            throw y.error(f.value("length"), "traceWindows.length", length + " ms is shorter than " + MIN_LENGTH_MS + " ms");
        }
        if (every > MAX_EVERY_MS) {
            throw y.error(f.value("every"), "traceWindows.every", "longer than a week");
        }
        if (length >= every) {
            throw y.error(f.value("length"), "traceWindows.length", "a trace window must be shorter than its period ("
                    + length + " ms every " + every + " ms)");
        }
        return Optional.of(new TraceWindows(every, length));
    }

    private long duration(Node v, String path) throws ConfigException {
        String text = y.nonEmptyString(v, path).trim();
        Matcher m = DURATION.matcher(text);
        if (!m.matches()) {
            throw y.error(v, path, "expected a duration such as 500ms, 10s, 10m or 1h, found " + quote(text));
        }
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "ms" -> n;
            case "s" -> n * 1000;
            case "m" -> n * 60_000;
            default -> n * 3_600_000;
        };
    }
}
