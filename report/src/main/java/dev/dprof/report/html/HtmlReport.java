package dev.dprof.report.html;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.dprof.consolidator.json.ResultJson;
import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.profile.ProfileException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The HTML report: one self-contained file — the page, Chart.js (bundled at build time from its
 * WebJar on Maven Central, MIT licence), the drawing script and the report's data — that needs
 * no network to open. {@code report.js} draws; {@link ReportData} says what.
 */
public final class HtmlReport {
    /** The Chart.js build inside the WebJar on the class path. */
    static final String CHART_JS = "META-INF/resources/webjars/chart.js/4.5.1/dist/chart.umd.min.js";

    private HtmlReport() {
    }

    /** Writes the page for {@code data} (from {@link ReportData#build}) to {@code out}; returns its size in bytes. */
    public static long write(ObjectNode data, Path out) throws IOException {
        String page = resource("dev/dprof/report/html/report.html")
                .replace("/*CHARTJS*/", scriptSafe(resource(CHART_JS)))
                .replace("/*APP*/", scriptSafe(resource("dev/dprof/report/html/report.js")))
                .replace("/*DATA*/", scriptSafe(ResultJson.MAPPER.writeValueAsString(data)));
        Path parent = out.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.writeString(out, page, StandardCharsets.UTF_8);
        return Files.size(out);
    }

    /** Builds the data and writes the page. */
    public static long write(Profile profile, ReportData.Options options, Path scratch, Path out)
            throws IOException, ProfileException {
        return write(ReportData.build(profile, options, scratch), out);
    }

    /**
     * Text inside a script element must not close it. {@code <\/} reads the same as {@code </} inside
     * a JavaScript string, regular expression or JSON string, and {@code </script} appears nowhere else.
     */
    static String scriptSafe(String text) {
        return text.replaceAll("(?i)</(script)", "<\\\\/$1");
    }

    private static String resource(String name) {
        try (InputStream in = HtmlReport.class.getClassLoader().getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("the build did not bundle " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
