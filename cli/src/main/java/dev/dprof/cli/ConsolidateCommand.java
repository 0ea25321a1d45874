package dev.dprof.cli;

import dev.dprof.calibrator.estimate.DriftModels;
import dev.dprof.consolidator.consolidate.ConsolidationException;
import dev.dprof.consolidator.consolidate.Consolidator;
import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.profile.ProfileException;
import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.consolidator.sync.PointSync;
import dev.dprof.consolidator.sync.SyncMethod;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code dprof consolidate RUN_DIR… --calibration DIR --out PROFILE}. */
@Command(name = "consolidate", mixinStandardHelpOptions = true,
        description = "Convert every process's ticks to sound reference intervals and merge all threads into one "
                + "causally ordered profile.")
public final class ConsolidateCommand implements Callable<Integer> {
    @Parameters(arity = "1..*", paramLabel = "RUN_DIR", description = "process queue directories, or folders holding them")
    List<Path> runs;

    @Option(names = "--calibration", paramLabel = "DIR", description = "folders with *.cal files (also searched: RUN_DIR/calibration)")
    List<Path> calibration = List.of();

    @Option(names = "--out", required = true, paramLabel = "PROFILE_DIR", description = "where the profile goes")
    Path out;

    @Option(names = "--sync", defaultValue = "freezer", paramLabel = "METHOD",
            description = "freezer (sound intervals); lr, ch or clc (point timestamps: Duda's regression and "
                    + "convex hull fitted to the calibration exchanges and the run's messages, or the controlled logical clock; the events are ordered "
                    + "by freezer first); or none (one clock domain only); default ${DEFAULT-VALUE}")
    String sync;

    @Option(names = "--drift", defaultValue = "bounded:1", paramLabel = "MODEL",
            description = "constant | bounded:PPM_PER_S (default ${DEFAULT-VALUE})")
    String drift;

    @Option(names = "--window", paramLabel = "FROM..TO",
            description = "analysed span in seconds from the first event, e.g. 2..30 or 5.. (drops warm-up)")
    String window;

    @Option(names = "--quiet", description = "no progress bar")
    boolean quiet;

    @Option(names = "--strict", description = Strict.HELP)
    boolean strict;

    @Override
    public Integer call() throws CliException, IOException {
        Consolidator.Sync method;
        SyncMethod point = null;
        try {
            String name = sync.toUpperCase(Locale.ROOT);
            if (name.equals("LR") || name.equals("CH") || name.equals("CLC")) {
                point = SyncMethod.valueOf(name);
                method = Consolidator.Sync.FREEZER;
            } else {
                method = Consolidator.Sync.valueOf(name);
            }
        } catch (IllegalArgumentException e) {
            throw new CliException("--sync: unknown method '" + sync + "' (expected freezer, lr, ch, clc or none)");
        }
        Path ordered = point == null ? out : out.resolveSibling(out.getFileName() + ".freezer");
        Consolidator.Options options;
        try {
            options = new Consolidator.Options(runs, calibration, ordered, method, DriftModels.parse(drift),
                    parseWindow(window));
        } catch (IllegalArgumentException e) {
            throw new CliException(e.getMessage());
        }
        ProfileInfo info;
        try (ProgressBar bar = progressBar()) {
            info = Consolidator.run(options, n -> {
                if (bar != null) {
                    bar.stepTo(n);
                }
            });
        } catch (ConsolidationException e) {
            throw new CliException(e.getMessage());
        }
        if (point != null) {
            try {
                PointSync.Derived derived = PointSync.derive(Profile.open(ordered), point, out);
                info = derived.info();
                System.out.printf(Locale.ROOT, "%s: %s; the FreeZer profile that ordered the events is in %s%n",
                        point.label(), point.assumption(), ordered);
                SyncQualityCommand.printBasis(Map.of(point.label(), derived.basis()), System.out);
            } catch (ProfileException e) {
                throw new CliException(e.getMessage());
            }
        }
        System.out.printf(Locale.ROOT, "%d events of %d processes, %d threads → %s%n", info.events(),
                info.processes().size(), info.streams().size(), out);
        System.out.printf(Locale.ROOT, "messages: %d matched, %d sends and %d receives unmatched; %d barrier instances%n",
                info.messages().matched(), info.messages().unmatchedSends(), info.messages().unmatchedReceives(),
                info.messages().barrierInstances());
        info.messages().unmatchedLines().forEach(line -> System.out.println("  unmatched: " + line));
        ProfileInfo.Tcp tcp = info.messages().tcp();
        if (tcp.connections() + tcp.withoutPeer() + tcp.ambiguous() > 0) {
            System.out.printf(Locale.ROOT, "TCP: %d connections paired, %d ends without a recorded peer, %d ends not told"
                    + " apart (no constraint); %d offsets written twice, %d reads dropped for it%n", tcp.connections(),
                    tcp.withoutPeer(), tcp.ambiguous(), tcp.duplicateOffsets(), tcp.droppedReceives());
        }
        System.out.println("bounds in reference ticks of " + info.referenceDomain() + "; assumption: " + info.assumption());
        for (ProfileInfo.Process p : info.processes()) {
            ProfileInfo.Calibration c = p.calibration();
            System.out.printf(Locale.ROOT, "  %s-%d: %s%s%s%n", p.host(), p.pid(), p.quality(),
                    c == null || c.contradiction() == null ? ""
                            : "; the data contradict the assumption: " + c.contradiction() + "; falls back to " + c.fallback(),
                    c == null || c.outsideSpanEvents() == 0 && c.unboundedEvents() == 0 ? ""
                            : String.format(Locale.ROOT, "; %d events outside the calibrated span, %d without a bound",
                            c.outsideSpanEvents(), c.unboundedEvents()));
            if (p.clockCheck() != null) {
                System.out.println("    counter: " + p.clockCheck());
            }
        }
        StatsCommand.printWeaving(info.weaving().lines(), System.out);
        info.problems().forEach(p -> System.err.println("dprof: " + p));
        Strict.check(strict, info.problems());
        return 0;
    }

    private ProgressBar progressBar() {
        if (quiet || System.console() == null) {
            return null;
        }
        return new ProgressBarBuilder().setTaskName("consolidate").setUnit(" events", 1)
                .setConsumer(new ConsoleProgressBarConsumer(System.err)).build();
    }

    static Optional<double[]> parseWindow(String text) {
        if (text == null) {
            return Optional.empty();
        }
        int dots = text.indexOf("..");
        if (dots < 0) {
            throw new IllegalArgumentException("--window: expected FROM..TO in seconds, got '" + text + "'");
        }
        try {
            String from = text.substring(0, dots).trim();
            String to = text.substring(dots + 2).trim();
            double[] w = {from.isEmpty() ? Double.NaN : Double.parseDouble(from),
                to.isEmpty() ? Double.NaN : Double.parseDouble(to)};
            if (!Double.isNaN(w[0]) && !Double.isNaN(w[1]) && w[1] <= w[0]) {
                throw new IllegalArgumentException("--window: TO must be after FROM in '" + text + "'");
            }
            return Optional.of(w);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--window: bad number in '" + text + "'");
        }
    }
}
