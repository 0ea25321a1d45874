package dev.dprof.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.dprof.calibrator.estimate.CalibrationException;
import dev.dprof.calibrator.estimate.CalibrationReport;
import dev.dprof.calibrator.estimate.CalibrationSet;
import dev.dprof.calibrator.estimate.DomainConversion;
import dev.dprof.calibrator.estimate.DriftModels;
import dev.dprof.consolidator.read.ProcessQueue;
import dev.dprof.consolidator.read.ReadException;
import dev.dprof.consolidator.read.RecordVisitor;
import dev.dprof.format.ClockCheck;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code dprof calibration show DIR…}: what the calibration files establish, per clock domain. */
@Command(name = "calibration", mixinStandardHelpOptions = true, description = "Inspect calibration results.",
        subcommands = CalibrationCommand.Show.class)
public final class CalibrationCommand {

    @Command(name = "show", mixinStandardHelpOptions = true,
            description = "Per domain: zeros, zero width, relative-frequency bound, quality, assumption, stretches.")
    static final class Show implements Callable<Integer> {
        @Parameters(arity = "1..*", paramLabel = "DIR", description = "folders with *.cal files (searched recursively)")
        List<Path> dirs;

        @Option(names = "--drift", defaultValue = "bounded:1", paramLabel = "MODEL",
                description = "constant | bounded:PPM_PER_S (default ${DEFAULT-VALUE})")
        String drift;

        @Option(names = "--json", description = "print JSON instead of a table")
        boolean json;

        @Override
        public Integer call() throws CliException, IOException {
            CalibrationSet set;
            try {
                set = CalibrationSet.load(dirs, DriftModels.parse(drift)).withClockFaults(clockFaults(dirs));
            } catch (CalibrationException | IllegalArgumentException e) {
                throw new CliException(e.getMessage());
            }
            List<CalibrationReport.Domain> domains = CalibrationReport.of(set);
            if (json) {
                System.out.println(Json.text(toJson(set, domains)));
            } else {
                print(set, domains);
            }
            return 0;
        }

        /**
         * Per domain, why its counter is not one clock, from the clock checks of the process queues whose
         * agents wrote calibration files under the folders ({@code <queue>/calibration/}; docs/BOUNDS.md,
         * "The counter is checked"). Files of a stand-alone calibrator have no queue beside them.
         */
        private static Map<String, String> clockFaults(List<Path> dirs) throws CliException {
            Map<String, String> faults = new LinkedHashMap<>();
            for (Path dir : dirs) {
                List<Path> queues;
                try (Stream<Path> walk = Files.walk(dir)) {
                    queues = walk.filter(d -> d.getFileName() != null && d.getFileName().toString().equals("calibration")
                            && Files.isDirectory(d) && d.getParent() != null && ProcessQueue.isQueue(d.getParent()))
                            .map(Path::getParent).sorted().toList();
                } catch (IOException | UncheckedIOException e) {
                    throw new CliException(dir + ": cannot list (" + e.getMessage() + ")");
                }
                for (Path queueDir : queues) {
                    try (ProcessQueue queue = ProcessQueue.open(queueDir)) {
                        String domain = queue.header().domainId();
                        queue.read(new RecordVisitor() {
                            @Override
                            public void clockCheck(ClockCheck check) {
                                check.fault().ifPresent(why -> faults.putIfAbsent(domain, why + " (" + queueDir + ")"));
                            }
                        });
                    } catch (ReadException e) {
                        throw new CliException(e.getMessage());
                    }
                }
            }
            return faults;
        }

        private static void print(CalibrationSet set, List<CalibrationReport.Domain> domains) {
            System.out.println("reference: " + set.reference());
            System.out.println("assumption: " + set.drift().describe());
            for (CalibrationReport.Domain d : domains) {
                System.out.printf(Locale.ROOT, "%s%n  parent %s, %s, %d zeros, median zero width %d ticks (%.2f µs), "
                                + "mean frequency %.12f … %.12f (width %.3f ppm), %d stretches checked, %d contradicted%n",
                        d.domain(), d.parent(), d.quality(), d.zeros(), d.medianZeroWidthTicks(),
                        d.medianZeroWidthNs() / 1e3, d.frequencyLowApprox(), d.frequencyHighApprox(), d.frequencyWidthPpm(),
                        d.stretches(), d.contradictedStretches());
                if (d.contradiction() != null) {
                    System.out.printf(Locale.ROOT, "  the data contradict the assumption: %s%n  falls back to: %s%n",
                            d.contradiction(), d.fallback());
                }
            }
            System.out.printf(Locale.ROOT, "ticks more than %.0f s before a domain's first zero or after its last get no bound%n",
                    DomainConversion.HORIZON_SECONDS);
        }

        private static ObjectNode toJson(CalibrationSet set, List<CalibrationReport.Domain> domains) {
            ObjectNode root = Json.MAPPER.createObjectNode();
            root.put("reference", set.reference());
            root.put("assumption", set.drift().describe());
            ArrayNode array = root.putArray("domains");
            for (CalibrationReport.Domain d : domains) {
                array.add(Json.MAPPER.valueToTree(d));
            }
            return root;
        }
    }
}
