package dev.dprof.agent.config;

import static dev.dprof.agent.config.YamlNodes.describe;
import static dev.dprof.agent.config.YamlNodes.isNull;
import static dev.dprof.agent.config.YamlNodes.quote;

import dev.dprof.agent.config.YamlNodes.Fields;
import dev.dprof.format.HandoffRegions;
import java.math.BigInteger;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;

/**
 * The top level of the file: the run's settings (format version, output directory, clock, drain interval, ring
 * size, annotations, excluded classes, disk reserve, mode and statistics interval), each checked here,
 * the trace windows by their reader, and the sections {@code calibration},
 * {@code handoffs} and {@code regions}, each read by its own reader.
 */
final class TopLevelReader {

    static final List<String> TOP_KEYS = List.of("version", "out", "clock", "drainIntervalMs", "ringEvents",
            "annotations", "exclude", "calibration", "handoffs", "regions", "diskReserveMiB", "mode",
            "statisticsIntervalMs", "traceWindows");

    private final YamlNodes y;

    TopLevelReader(YamlNodes y) {
        this.y = y;
    }

    AgentConfig read(Node root) throws ConfigException {
        if (!(root instanceof MappingNode)) {
            throw y.error(root, "", "the top level must be a mapping of options (version, out, clock, ...), found "
                    + describe(root));
        }
        Fields f = y.fields(root, "");
        y.only(f, TOP_KEYS);

        int version = AgentConfig.VERSION;
        if (f.has("version")) {
            BigInteger v = y.integer(f.value("version"), "version");
            if (!v.equals(BigInteger.valueOf(AgentConfig.VERSION))) {
                throw y.error(f.value("version"), "version", "unsupported config version " + v
                        + " (only version " + AgentConfig.VERSION + " is known)");
            }
        }
        Path out = Path.of(AgentConfig.DEFAULT_OUT);
        if (f.has("out")) {
            String text = y.nonEmptyString(f.value("out"), "out");
            try {
                out = Path.of(text);
            } catch (InvalidPathException e) {
                throw y.error(f.value("out"), "out", "invalid path " + quote(text) + ": " + e.getReason());
            }
        }
        ClockChoice clock = f.has("clock")
                ? y.choice(f.value("clock"), "clock", "clock", ClockChoice.values(), ClockChoice::yamlName)
                : AgentConfig.DEFAULT_CLOCK;
        String clockProblem = clock.problemOn(System.getProperty("os.arch", ""));
        if (clockProblem != null) {
            throw y.error(f.value("clock"), "clock", clockProblem);
        }
        int drain = f.has("drainIntervalMs")
                ? y.intInRange(f.value("drainIntervalMs"), "drainIntervalMs", AgentConfig.MIN_DRAIN_INTERVAL_MS,
                        AgentConfig.MAX_DRAIN_INTERVAL_MS)
                : AgentConfig.DEFAULT_DRAIN_INTERVAL_MS;
        int ring = f.has("ringEvents") ? ringEvents(f.value("ringEvents")) : AgentConfig.DEFAULT_RING_EVENTS;
        boolean annotations = !f.has("annotations") || y.bool(f.value("annotations"), "annotations");
        List<String> exclude = f.has("exclude") ? exclude(f.value("exclude")) : List.of();
        Optional<CalibrationSpec> calibration = f.has("calibration")
                ? new CalibrationReader(y).read(f.value("calibration"))
                : Optional.empty();
        Set<HandoffRegions.Kind> handoffs = f.has("handoffs") ? new HandoffsReader(y).read(f.value("handoffs"))
                : AgentConfig.ALL_HANDOFFS;
        List<RegionSpec> regions = f.has("regions") ? new RegionsReader(y).read(f.value("regions")) : List.of();
        int reserve = f.has("diskReserveMiB")
                ? y.intInRange(f.value("diskReserveMiB"), "diskReserveMiB", AgentConfig.MIN_DISK_RESERVE_MIB,
                        AgentConfig.MAX_DISK_RESERVE_MIB)
                : AgentConfig.DEFAULT_DISK_RESERVE;
        RecordingMode mode = f.has("mode")
                ? y.choice(f.value("mode"), "mode", "mode", RecordingMode.values(), RecordingMode::yamlName)
                : RecordingMode.TRACE;
        int statisticsInterval = f.has("statisticsIntervalMs")
                ? y.intInRange(f.value("statisticsIntervalMs"), "statisticsIntervalMs",
                        AgentConfig.MIN_STATISTICS_INTERVAL_MS, AgentConfig.MAX_STATISTICS_INTERVAL_MS)
                : AgentConfig.DEFAULT_STATISTICS_INTERVAL_MS;
        Optional<TraceWindows> windows = f.has("traceWindows")
                ? new TraceWindowsReader(y).read(f.value("traceWindows")) : Optional.empty();
        if (windows.isPresent() && mode != RecordingMode.STATISTICS) {
            throw y.error(f.value("traceWindows"), "traceWindows", "trace windows need mode: statistics (a trace"
                    + " records every event already)");
        }
        return new AgentConfig(version, out, clock, drain, ring, annotations, exclude, calibration, regions,
                handoffs, reserve, mode, statisticsInterval, windows);
    }

    private int ringEvents(Node v) throws ConfigException {
        String expected = "expected a power of two in " + AgentConfig.MIN_RING_EVENTS + ".."
                + AgentConfig.MAX_RING_EVENTS;
        BigInteger n = y.integer(v, "ringEvents");
        if (n.compareTo(BigInteger.valueOf(AgentConfig.MIN_RING_EVENTS)) < 0
                || n.compareTo(BigInteger.valueOf(AgentConfig.MAX_RING_EVENTS)) > 0) {
            throw y.error(v, "ringEvents", n + " is out of range (" + expected + ")");
        }
        if (n.bitCount() != 1) {
            throw y.error(v, "ringEvents", n + " is not a power of two (" + expected + ")");
        }
        return n.intValueExact();
    }

    private List<String> exclude(Node v) throws ConfigException {
        if (isNull(v)) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        List<Node> items = y.list(v, "exclude");
        for (int i = 0; i < items.size(); i++) {
            String path = "exclude[" + i + "]";
            String glob = y.nonEmptyString(items.get(i), path);
            y.classPattern(items.get(i), path, glob);
            out.add(glob);
        }
        return out;
    }
}
