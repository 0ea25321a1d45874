package dev.dprof.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintStream;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Shows a {@link TestbedCheck.Result}: a table per machine and the headline ratios for people,
 * and the JSON whose fields {@code docs/CALIBRATION.md} ("Test bed") documents for scripts.
 * Figures that do not exist (a frequency bound from a single zero) are {@code null} in JSON,
 * never {@code NaN}.
 */
final class TestbedReport {
    private TestbedReport() {
    }

    static void print(TestbedCheck.Result r, PrintStream out) {
        out.println("reference: " + r.reference());
        out.println("assumption: " + r.assumption());
        out.printf(Locale.ROOT, "%-7s %-12s %5s %9s %9s %9s %9s %7s %9s %9s %8s %8s %9s %9s %9s %9s%n", "machine",
                "quality", "zeros", "minRtt µs", "zero µs", "first µs", "last µs", "span s", "freq ppm", "floor ppm",
                "ticks", "checked", "contained", "width µs", "p99 µs", "max µs");
        for (TestbedCheck.DomainRow d : r.rows()) {
            out.printf(Locale.ROOT,
                    "%-7s %-12s %5d %9.2f %9.2f %9.2f %9.2f %7.2f %9.4f %9.4f %8d %8d %9d %9.2f %9.2f %9.2f%n",
                    d.machine(), d.quality(), d.zeros(), d.minRttNs() / 1e3, d.medianZeroWidthNs() / 1e3,
                    d.firstZeroWidthNs() / 1e3, d.lastZeroWidthNs() / 1e3, d.spanSec(),
                    d.freqWidthPpm(), d.floorPpm(), d.ticks(), d.checked(), d.contained(), d.medianWidthNs() / 1e3,
                    d.p99WidthNs() / 1e3, d.maxWidthNs() / 1e3);
        }
        out.printf(Locale.ROOT, "checked %d test ticks of %d domains: %d contained (%s), %d missed, %d without a bound"
                        + " (%d outside the span)%n",
                r.checked(), r.checkedDomains(), r.contained(),
                r.checked() == 0 ? "-" : String.format(Locale.ROOT, "%.4f%%", 100.0 * r.contained() / r.checked()),
                r.missed(), r.unbounded(), r.outsideSpan());
        for (TestbedCheck.DomainRow d : r.rows()) {
            if (d.contradiction() != null) {
                out.printf(Locale.ROOT, "%s: %s: the data contradict the assumption: %s; falls back to %s%n",
                        d.machine(), d.quality(), d.contradiction(), d.fallback());
            }
        }
        if (r.checked() > 0) {
            out.printf(Locale.ROOT, "interval width: median %.2f µs = %.2f × minRtt (%.2f µs), p99 %.2f µs, max %.2f µs%n",
                    r.medianWidthNs() / 1e3, r.widthOverMinRtt(), r.minRttNs() / 1e3, r.p99WidthNs() / 1e3,
                    r.maxWidthNs() / 1e3);
        } else {
            out.println("interval width: no tick has a bound under this assumption");
        }
        out.printf(Locale.ROOT, "frequency bound: max %.4f ppm = %.3f × floor %.4f ppm (2·minRtt/span, span %.2f s); "
                + "each domain against its own floor: at most %.3f ×%n", r.freqWidthPpmMax(), r.freqOverFloor(),
                r.floorPpm(), r.spanSec(), r.freqOverOwnFloorMax());
        out.printf(Locale.ROOT, "median zero width %.2f µs; rejected packets %d, stale %d; worst quality %s%n",
                r.medianZeroWidthNs() / 1e3, r.rejectedPackets(), r.stalePackets(), r.quality());
        if (r.contained() != r.checked()) {
            out.printf(Locale.ROOT, "NOT CONTAINED: %d ticks, the truth up to %.2f µs outside the bound%n",
                    r.checked() - r.contained(), r.worstMissNs() / 1e3);
        }
        r.examples().forEach(e -> out.println("NOT CONTAINED " + e));
    }

    static ObjectNode json(TestbedCheck.Result r, Map<String, Object> setup, Optional<Map<String, Long>> relays) {
        ObjectNode root = Json.MAPPER.createObjectNode();
        root.put("domains", r.domains());
        root.put("checkedDomains", r.checkedDomains());
        root.put("checked", r.checked());
        root.put("contained", r.contained());
        root.put("unbounded", r.unbounded());
        root.put("missed", r.missed());
        root.put("outsideSpan", r.outsideSpan());
        number(root.putObject("zeroWidthNs"), "median", r.medianZeroWidthNs());
        ObjectNode width = root.putObject("intervalWidthNs");
        number(width, "median", r.medianWidthNs());
        number(width, "p99", r.p99WidthNs());
        number(width, "max", r.maxWidthNs());
        number(root, "minRttNs", r.minRttNs());
        number(root, "spanSec", r.spanSec());
        number(root.putObject("freqWidthPpm"), "max", r.freqWidthPpmMax());
        root.put("rejectedPackets", r.rejectedPackets());
        root.put("stalePackets", r.stalePackets());
        root.put("quality", r.quality());
        root.put("assumption", r.assumption());
        number(root, "floorPpm", r.floorPpm());
        number(root, "freqOverFloor", r.freqOverFloor());
        number(root, "freqOverOwnFloorMax", r.freqOverOwnFloorMax());
        number(root, "widthOverMinRtt", r.widthOverMinRtt());
        root.put("reference", r.reference());
        ArrayNode rows = root.putArray("perDomain");
        for (TestbedCheck.DomainRow d : r.rows()) {
            ObjectNode row = rows.addObject();
            row.put("machine", d.machine());
            row.put("domain", d.domain());
            row.put("quality", d.quality());
            row.put("zeros", d.zeros());
            number(row, "minRttNs", d.minRttNs());
            number(row, "medianZeroWidthNs", d.medianZeroWidthNs());
            number(row, "firstZeroWidthNs", d.firstZeroWidthNs());
            number(row, "lastZeroWidthNs", d.lastZeroWidthNs());
            number(row, "spanSec", d.spanSec());
            number(row, "freqWidthPpm", d.freqWidthPpm());
            number(row, "floorPpm", d.floorPpm());
            row.put("ticks", d.ticks());
            row.put("checked", d.checked());
            row.put("contained", d.contained());
            row.put("unbounded", d.unbounded());
            number(row, "medianWidthNs", d.medianWidthNs());
            number(row, "p99WidthNs", d.p99WidthNs());
            number(row, "maxWidthNs", d.maxWidthNs());
            number(row, "worstMissNs", d.worstMissNs());
            row.put("missed", d.checked() - d.contained());
            row.put("outsideSpan", d.outsideSpan());
            row.put("contradiction", d.contradiction());
            row.put("fallback", d.fallback());
        }
        number(root, "worstMissNs", r.worstMissNs());
        ArrayNode examples = root.putArray("notContained");
        r.examples().forEach(examples::add);
        root.set("setup", Json.MAPPER.valueToTree(setup));
        relays.ifPresent(c -> root.set("relays", Json.MAPPER.valueToTree(c)));
        return root;
    }

    private static void number(ObjectNode node, String field, double value) {
        if (Double.isFinite(value)) {
            node.put(field, value);
        } else {
            node.putNull(field);
        }
    }
}
