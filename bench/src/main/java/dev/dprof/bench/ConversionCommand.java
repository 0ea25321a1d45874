package dev.dprof.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * {@code dprof bench conversion [--json FILE] [--quick]}: throughput of sound conversion of sorted
 * ticks ÷ throughput of {@code a + b·k}, both measured in one JMH run ({@link ConversionBench}).
 * Target ≥ 0.5 (the paper's FreeZer ran at 0.35× of linear regression).
 */
final class ConversionCommand {
    static final double TARGET = 0.5;

    private ConversionCommand() {
    }

    static int run(List<String> args) throws Exception {
        Path json = null;
        boolean quick = false;
        for (int i = 0; i < args.size(); i++) {
            switch (args.get(i)) {
                case "--json" -> json = Path.of(args.get(++i));
                case "--quick" -> quick = true;
                default -> {
                    return BenchMain.usage("conversion: unknown option " + args.get(i));
                }
            }
        }
        Options options = new OptionsBuilder().include(ConversionBench.class.getName() + "\\.")
                .forks(quick ? 1 : 2).warmupIterations(quick ? 2 : 4).warmupTime(TimeValue.milliseconds(quick ? 300 : 1000))
                .measurementIterations(quick ? 3 : 6).measurementTime(TimeValue.milliseconds(quick ? 300 : 1000))
                .build();
        Collection<RunResult> results = new Runner(options).run();
        ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        ObjectNode root = mapper.createObjectNode();
        double worst = Double.MAX_VALUE;
        for (String drift : List.of("bounded:1", "constant")) {
            double sound = score(results, "sound", drift);
            double linear = score(results, "linear", drift);
            double ratio = linear / sound;
            worst = Math.min(worst, ratio);
            root.putObject(drift).put("soundNsPerTick", sound * 1000 / ConversionBench.TICKS)
                    .put("linearNsPerTick", linear * 1000 / ConversionBench.TICKS).put("ratio", ratio);
            System.out.printf(Locale.ROOT, "%-10s sound %.2f ns/tick, linear %.2f ns/tick, ratio %.2f (target ≥ %.1f: %s)%n",
                    drift, sound * 1000 / ConversionBench.TICKS, linear * 1000 / ConversionBench.TICKS, ratio, TARGET,
                    ratio >= TARGET ? "PASS" : "FAIL");
        }
        root.put("ratio", worst);
        double build = DomainBuildCost.medianMillis();
        root.put("buildMillisPerDomain", build).put("buildZeros", DomainBuildCost.ZEROS);
        System.out.printf(Locale.ROOT, "building one domain's conversion, %d zeros a second apart (the checks included):"
                + " %.1f ms thread CPU (median)%n", DomainBuildCost.ZEROS, build);
        root.put("jdk", Runtime.version().toString());
        if (json != null) {
            mapper.writeValue(json.toFile(), root);
        }
        return 0;
    }

    /** Average time per op (µs) of a benchmark at a drift parameter. */
    private static double score(Collection<RunResult> results, String benchmark, String drift) {
        return results.stream()
                .filter(r -> r.getParams().getBenchmark().endsWith("." + benchmark)
                        && drift.equals(r.getParams().getParam("drift")))
                .findFirst().orElseThrow().getPrimaryResult().getScore();
    }
}
