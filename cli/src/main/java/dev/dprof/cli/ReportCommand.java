package dev.dprof.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.profile.ProfileException;
import dev.dprof.consolidator.sync.Baselines;
import dev.dprof.report.html.HtmlReport;
import dev.dprof.report.html.ReportData;
import dev.dprof.report.perfetto.PerfettoExport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code dprof report PROFILE}: the HTML report, the report's data as JSON and the Perfetto trace. */
@Command(name = "report", mixinStandardHelpOptions = true,
        description = "Write what people look at: a self-contained HTML report (summary and calibration, region "
                + "statistics, straggler scores, what-if curves, critical path, synchronization comparison, timeline), "
                + "its data as JSON, and a Perfetto trace.")
public final class ReportCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "PROFILE", description = "a folder written by 'dprof consolidate'")
    Path profile;

    @Option(names = "--html", paramLabel = "FILE", description = "the HTML report (default: PROFILE/report.html)")
    Path html;

    @Option(names = "--json", paramLabel = "FILE", description = "the report's data as JSON")
    Path json;

    @Option(names = "--perfetto", paramLabel = "FILE",
            description = "a Perfetto trace (protobuf TrackEvents: ui.perfetto.dev, trace processor)")
    Path perfetto;

    @Option(names = "--body", paramLabel = "REGION", description = "straggler score: the work region")
    String body;

    @Option(names = "--barrier", paramLabel = "REGION", description = "straggler score: the waiting region")
    String barrier;

    @Option(names = "--from", paramLabel = "REGION",
            description = "what-if and critical-path span: each thread's first enter of this region")
    String from;

    @Option(names = "--to", paramLabel = "REGION",
            description = "what-if and critical-path span: each thread's last exit of this region")
    String to;

    @Option(names = "--no-baselines", description = "leave out the comparison with lr, ch and clc (three more profiles)")
    boolean noBaselines;

    @Option(names = "--strict", description = Strict.HELP)
    boolean strict;

    @Option(names = "--max-spans", paramLabel = "N", defaultValue = "2000",
            description = "timeline: the longest N region instances per thread (default ${DEFAULT-VALUE})")
    int maxSpans;

    @Override
    public Integer call() throws Exception {
        Profile p;
        try {
            p = Profile.open(profile);
        } catch (ProfileException e) {
            throw new CliException(e.getMessage());
        }
        Strict.list(p.info().problems());
        Strict.check(strict, p.info().problems());
        write(p, new ReportData.Options(body, barrier, from, to, ReportData.Options.CURVES, maxSpans, 2000,
                !noBaselines), null, html == null ? profile.resolve("report.html") : html, json);
        if (perfetto != null) {
            trace(p, perfetto);
        }
        return 0;
    }

    /** The Perfetto trace of the profile. */
    static void trace(Profile profile, Path out) throws CliException {
        try {
            PerfettoExport.Summary s = PerfettoExport.write(profile, out);
            System.out.printf(Locale.ROOT, "perfetto trace: %s (%.1f MB: %d slices, %d flows)%n", out, s.bytes() / 1e6,
                    s.slices(), s.flows());
        } catch (ProfileException e) {
            throw new CliException(e.getMessage());
        } catch (IOException e) {
            throw new CliException("cannot write " + out + ": " + e.getMessage());
        }
    }

    /**
     * Builds the report's data once and writes the HTML (and the JSON when asked); {@code baselines}
     * when the caller has already derived them from {@code profile}, else null.
     */
    static void write(Profile profile, ReportData.Options options, Baselines.Derived baselines, Path html, Path json)
            throws Exception {
        Path scratch = Files.createTempDirectory("dprof-report-");
        try {
            ObjectNode data = baselines != null ? ReportData.build(profile, options, baselines)
                    : ReportData.build(profile, options, scratch);
            long bytes = HtmlReport.write(data, html);
            System.out.printf(Locale.ROOT, "report: %s (%.1f KB)%n", html, bytes / 1024.0);
            JsonNode incomplete = data.path("criticalPath").path("incomplete");
            if (incomplete.isObject()) {
                System.out.println("note: " + incomplete.path("note").asText());
                incomplete.path("suggestion").asText().lines().forEach(line -> System.out.println("    " + line));
            }
            if (json != null) {
                Json.write(json, data);
                System.out.println("report data: " + json);
            }
        } catch (ProfileException | IllegalArgumentException e) {
            throw new CliException(e.getMessage());
        } catch (IOException e) {
            throw new CliException("cannot write the report: " + e.getMessage());
        } finally {
            Launch.deleteRecursively(scratch);
        }
    }
}
