package dev.dprof.agent.config;

import static dev.dprof.agent.config.YamlNodes.isNull;
import static dev.dprof.agent.config.YamlNodes.quote;

import dev.dprof.agent.config.YamlNodes.Fields;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.yaml.snakeyaml.nodes.Node;

/** The {@code calibration:} section: the base to calibrate against ({@code host:port}), the interval and the key. */
final class CalibrationReader {

    static final List<String> CALIBRATION_KEYS = List.of("base", "intervalSec", "keyFile", "insecure");

    private final YamlNodes y;

    CalibrationReader(YamlNodes y) {
        this.y = y;
    }

    Optional<CalibrationSpec> read(Node v) throws ConfigException {
        if (isNull(v)) {
            return Optional.empty();
        }
        Fields f = y.fields(v, "calibration");
        y.only(f, CALIBRATION_KEYS);
        if (!f.has("base")) {
            throw y.error(v, "calibration", "missing required key 'base' (host:port of the calibration base)");
        }
        Node baseNode = f.value("base");
        String base = y.nonEmptyString(baseNode, "calibration.base");
        String host;
        String portText;
        if (base.startsWith("[")) {
            int close = base.indexOf(']');
            if (close < 0 || close + 1 >= base.length() || base.charAt(close + 1) != ':') {
                throw y.error(baseNode, "calibration.base", "expected [ipv6-address]:port, found " + quote(base));
            }
            host = base.substring(1, close);
            portText = base.substring(close + 2);
        } else {
            int colon = base.lastIndexOf(':');
            if (colon < 0) {
                throw y.error(baseNode, "calibration.base", "expected host:port, found " + quote(base)
                        + " (no port)");
            }
            host = base.substring(0, colon);
            portText = base.substring(colon + 1);
            if (host.indexOf(':') >= 0) {
                throw y.error(baseNode, "calibration.base", "write an IPv6 address as [address]:port, found "
                        + quote(base));
            }
        }
        if (host.isEmpty()) {
            throw y.error(baseNode, "calibration.base", "expected host:port, found " + quote(base) + " (no host)");
        }
        if (!host.chars().allMatch(c -> c > ' ' && c < 0x7f && c != '/' && c != '@')) {
            throw y.error(baseNode, "calibration.base", "invalid host " + quote(host));
        }
        if (portText.isEmpty()) {
            throw y.error(baseNode, "calibration.base", "expected host:port, found " + quote(base) + " (no port)");
        }
        if (!portText.chars().allMatch(c -> c >= '0' && c <= '9') || portText.length() > 9) {
            throw y.error(baseNode, "calibration.base", "port " + quote(portText) + " is not a number 1..65535");
        }
        int port = Integer.parseInt(portText);
        if (port < 1 || port > 65535) {
            throw y.error(baseNode, "calibration.base", "port " + port + " is out of range (expected 1..65535)");
        }
        int interval = f.has("intervalSec")
                ? y.intInRange(f.value("intervalSec"), "calibration.intervalSec", 1, Integer.MAX_VALUE)
                : CalibrationSpec.DEFAULT_INTERVAL_SEC;
        Optional<Path> keyFile = Optional.empty();
        if (f.has("keyFile")) {
            String text = y.nonEmptyString(f.value("keyFile"), "calibration.keyFile");
            try {
                keyFile = Optional.of(Path.of(text));
            } catch (InvalidPathException e) {
                throw y.error(f.value("keyFile"), "calibration.keyFile", "invalid path " + quote(text) + ": "
                        + e.getReason());
            }
        }
        boolean insecure = f.has("insecure") && y.bool(f.value("insecure"), "calibration.insecure");
        if (keyFile.isPresent() && insecure) {
            throw y.error(f.value("insecure"), "calibration.insecure", "insecure: true and a keyFile exclude each "
                    + "other (a key authenticates the calibration; insecure runs without one)");
        }
        return Optional.of(new CalibrationSpec(host, port, interval, keyFile, insecure));
    }
}
