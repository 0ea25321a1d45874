package dev.dprof.cli;

import dev.dprof.calibrator.estimate.DriftModel;
import dev.dprof.calibrator.estimate.DriftModels;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code dprof testbed check DIR}: the check of {@code testbed calibrate} again, on a finished run
 * folder, under any drift model — so one run's zeros can be judged under two assumptions (a
 * drifting run is bounded under {@code bounded:1} and contradicted under {@code constant}).
 */
@Command(name = "check", mixinStandardHelpOptions = true,
        description = "Re-check a 'testbed calibrate' run folder's test ticks, e.g. under another drift model.")
final class TestbedCheckCommand implements Callable<Integer> {
    @Parameters(paramLabel = "DIR", description = "the run folder (its --out)")
    Path dir;

    @Option(names = "--drift-model", defaultValue = "bounded:" + DriftModel.DEFAULT_PPM_PER_SECOND, paramLabel = "MODEL",
            description = "constant | bounded:PPM_PER_S (default ${DEFAULT-VALUE})")
    String driftModel;

    @Option(names = "--outside-span-s", defaultValue = "0", paramLabel = "S",
            description = "also test ticks up to S seconds before each join's first exchange and after its last")
    double outsideSpanS;

    @Option(names = "--json", paramLabel = "FILE", description = "also write the figures as JSON")
    Path json;

    @Override
    public Integer call() throws CliException, IOException {
        DriftModel drift;
        try {
            drift = DriftModels.parse(driftModel);
        } catch (IllegalArgumentException e) {
            throw new CliException("--drift-model: " + e.getMessage());
        }
        TestbedCheck.Result result = TestbedCheck.ofFolder(dir, drift, outsideSpanS);
        TestbedReport.print(result, System.out);
        if (json != null) {
            Map<String, Object> setup = new LinkedHashMap<>();
            setup.put("driftModel", driftModel);
            setup.put("outsideSpanS", outsideSpanS);
            setup.put("runFolder", dir.toAbsolutePath().toString());
            Json.write(json, TestbedReport.json(result, setup, Optional.empty()));
        }
        return TestbedCalibrateCommand.verdict(result, dir);
    }
}
