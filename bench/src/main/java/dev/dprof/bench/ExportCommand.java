package dev.dprof.bench;

import dev.dprof.report.perfetto.PerfettoExport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Properties;

/**
 * {@code dprof bench export [--events N] [--processes P] [--threads T] [--iterations I] [--budget S]
 * [--repeats R] [--xmx SIZE] [--work DIR] [--keep]}: the Perfetto export of the consolidate
 * benchmark's profile.
 *
 * <ol>
 * <li>The synthetic run of {@link ConsolidateCommand} (same arguments, same generator; with
 * {@code --work} the two benchmarks share it) is consolidated once with FreeZer.</li>
 * <li>{@link PerfettoExport#write(dev.dprof.consolidator.profile.Profile, Path, long)} with a slice
 * budget of S (default {@link PerfettoExport#DEFAULT_SLICE_BUDGET}) runs R times (3), each in a
 * fresh JVM with {@code -Xms = -Xmx = SIZE} (1g) ({@link ExportFork}).</li>
 * </ol>
 * Figures: the median wall time of the export (both passes, JVM start-up excluded), the file's
 * size, what it holds, and the largest peak heap of the runs.
 */
final class ExportCommand {
    private ExportCommand() {
    }

    static int run(List<String> args) throws Exception {
        long events = 20_000_000L;
        int processes = 8;
        int threads = 4;
        int iterations = 500;
        long budget = PerfettoExport.DEFAULT_SLICE_BUDGET;
        int repeats = 3;
        String xmx = "1g";
        Path work = null;
        boolean keep = false;
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (!a.equals("--keep") && i + 1 >= args.size()) {
                return BenchMain.usage("export: " + a + " needs a value");
            }
            switch (a) {
                case "--events" -> events = Long.parseLong(args.get(++i));
                case "--processes" -> processes = Integer.parseInt(args.get(++i));
                case "--threads" -> threads = Integer.parseInt(args.get(++i));
                case "--iterations" -> iterations = Integer.parseInt(args.get(++i));
                case "--budget" -> budget = Long.parseLong(args.get(++i));
                case "--repeats" -> repeats = Integer.parseInt(args.get(++i));
                case "--xmx" -> xmx = args.get(++i);
                case "--work" -> work = Path.of(args.get(++i)).toAbsolutePath();
                case "--keep" -> keep = true;
                default -> {
                    return BenchMain.usage("unknown argument to export: " + a);
                }
            }
        }
        boolean temporary = work == null;
        if (temporary) {
            work = Files.createTempDirectory("dprof-bench-export-");
        }
        try {
            String classPath = ConsolidateCommand.snapshotClassPath(work);
            ConsolidateCommand.Plan plan = new ConsolidateCommand.Plan(events, processes, threads, iterations, repeats,
                    xmx, false);
            return measure(plan, budget, work, classPath);
        } finally {
            if (temporary && !keep) {
                ConsolidateCommand.deleteTree(work);
            } else {
                System.out.println("dprof bench export: kept " + work);
            }
        }
    }

    private static int measure(ConsolidateCommand.Plan plan, long budget, Path work, String classPath) throws Exception {
        String loadBefore = ConsolidateCommand.loadAverage();
        System.out.println("dprof bench export: " + Machine.describe() + "; load average " + loadBefore);
        Properties generated = ConsolidateCommand.generate(plan, plan.events(), work.resolve("large"), classPath);
        Path profile = consolidate(plan, generated, work, classPath);

        List<Properties> runs = new ArrayList<>();
        Path out = work.resolve("trace.perfetto");
        for (int r = 0; r < plan.repeats(); r++) {
            Path result = work.resolve("result-export.properties");
            List<String> cmd = ConsolidateCommand.javaCommand(classPath, plan.xmx(), null);
            cmd.addAll(List.of(ExportFork.class.getName(), profile.toString(), out.toString(), result.toString(),
                    Long.toString(budget)));
            ConsolidateCommand.execute(cmd, work.resolve("fork-export.log"));
            Properties p = ConsolidateCommand.load(result);
            runs.add(p);
            System.out.printf(Locale.ROOT, "  export  %,d events  %8.3f s (thread cpu %7.3f s)  %,d bytes  peak heap %d MiB%n",
                    Long.parseLong(p.getProperty("events")), seconds(p, "ns"), seconds(p, "cpuNs"),
                    Long.parseLong(p.getProperty("bytes")), Long.parseLong(p.getProperty("peakHeapBytes")) >> 20);
        }
        Files.deleteIfExists(out);
        double[] wall = runs.stream().mapToDouble(p -> seconds(p, "ns")).sorted().toArray();
        double[] cpu = runs.stream().mapToDouble(p -> seconds(p, "cpuNs")).sorted().toArray();
        Properties last = runs.get(runs.size() - 1);
        long n = Long.parseLong(last.getProperty("events"));
        long bytes = Long.parseLong(last.getProperty("bytes"));
        long peak = runs.stream().mapToLong(p -> Long.parseLong(p.getProperty("peakHeapBytes"))).max().orElse(0);
        System.out.printf(Locale.ROOT, "%ndprof bench export: %,d events, slice budget %,d, heap -Xmx%s, %d runs%n",
                n, budget, plan.xmx(), runs.size());
        System.out.printf(Locale.ROOT, "  time      median %.3f s wall (%.2f M events/s), %.3f s thread cpu; all %s%n",
                ConsolidateCommand.Figures.median(wall), n / ConsolidateCommand.Figures.median(wall) / 1e6,
                ConsolidateCommand.Figures.median(cpu), Arrays.toString(wall));
        System.out.printf(Locale.ROOT, "  file      %,d bytes (%.1f MiB, %.1f bytes/event): %s packets, %s slices, %s flows%n",
                bytes, bytes / 1048576.0, bytes / (double) n, last.getProperty("packets"), last.getProperty("slices"),
                last.getProperty("flows"));
        System.out.printf(Locale.ROOT, "  heap      peak %d MiB (largest of the runs)%n", peak >> 20);
        System.out.println("  load average " + loadBefore + " before, " + ConsolidateCommand.loadAverage() + " after");
        return 0;
    }

    /** Consolidates the run once (FreeZer), or reuses the profile consolidated from the same trace. */
    private static Path consolidate(ConsolidateCommand.Plan plan, Properties generated, Path work, String classPath)
            throws Exception {
        Path profile = work.resolve("profile-export");
        Path argsFile = work.resolve("profile-export.arguments");
        String traceArgs = plan.traceArgs(plan.events());
        if (Files.isRegularFile(profile.resolve("profile.json")) && Files.isRegularFile(argsFile)
                && Files.readString(argsFile).equals(traceArgs)) {
            System.out.println("dprof bench export: reusing the profile in " + profile);
            return profile;
        }
        ConsolidateCommand.deleteTree(profile);
        System.out.println("dprof bench export: consolidating into " + profile);
        List<String> cmd = ConsolidateCommand.javaCommand(classPath, "4g", null);
        cmd.addAll(List.of(ConsolidateFork.class.getName(), "product", generated.getProperty("runDir"),
                generated.getProperty("calibrationDir"), profile.toString(), work.resolve("result-consolidate.properties")
                        .toString(), ConsolidateCommand.DRIFT));
        ConsolidateCommand.execute(cmd, work.resolve("fork-consolidate.log"));
        Files.writeString(argsFile, traceArgs);
        return profile;
    }

    private static double seconds(Properties p, String key) {
        return Long.parseLong(p.getProperty(key)) / 1e9;
    }
}
