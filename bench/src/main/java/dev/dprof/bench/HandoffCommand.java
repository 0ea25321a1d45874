package dev.dprof.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * {@code dprof bench handoff [--rounds R] [--quick]}: what recording handoffs costs a queue-heavy
 * program ({@link HandoffBench}). Each round runs every benchmark in a fork with the agent and
 * handoffs on ({@code handoffs=auto}) and in one with handoffs off ({@code handoffs=off}), one
 * after the other, so both variants see the same machine; the figure is, per benchmark, the
 * ratio of the summed throughputs (on ÷ off) over all rounds. Target: ≥ 0.5 for each benchmark
 * (a handoff costs about two probe events — the target — against a handoff of some tens to
 * hundreds of ns between two threads). With {@code --cpu}, the CPU time per handoff of the
 * application's thread and of the drainer instead ({@link HandoffCpuCommand}).
 */
final class HandoffCommand {
    static final String[] BENCHMARKS = {"array", "linked", "poolExecute", "park"};
    static final double TARGET_RATIO = 0.5;

    private HandoffCommand() {
    }

    static int run(List<String> args) throws Exception {
        if (args.contains("--cpu")) {
            List<String> rest = new ArrayList<>(args);
            rest.remove("--cpu");
            return HandoffCpuCommand.run(rest);
        }
        int rounds = 2;
        boolean quick = false;
        for (int i = 0; i < args.size(); i++) {
            switch (args.get(i)) {
                case "--rounds" -> rounds = i + 1 < args.size() ? Integer.parseInt(args.get(++i)) : -1;
                case "--quick" -> quick = true;
                default -> {
                    return BenchMain.usage("unknown argument to handoff: " + args.get(i));
                }
            }
        }
        if (rounds < 1) {
            return BenchMain.usage("--rounds needs a positive number");
        }
        Path agentJar = BenchMain.agentJar();
        if (agentJar == null) {
            return 1;
        }
        Path work = Files.createTempDirectory("dprof-bench-handoff-");
        Path yaml = Files.writeString(work.resolve("dprof.yaml"), "# no regions: only the handoffs\n");
        OffsetDateTime started = OffsetDateTime.now().truncatedTo(ChronoUnit.SECONDS);
        String loadBefore = Machine.loadAverage();
        Map<String, double[]> sums = new LinkedHashMap<>();
        for (String b : BENCHMARKS) {
            sums.put(b, new double[2]);
        }
        try {
            for (int r = 0; r < rounds; r++) {
                for (int variant = 0; variant < 2; variant++) {
                    String handoffs = variant == 0 ? "auto" : "off";
                    Path out = Files.createDirectories(work.resolve("queues-" + r + "-" + handoffs));
                    for (RunResult result : runJmh(agentJar, yaml, out, handoffs, quick)) {
                        String full = result.getParams().getBenchmark();
                        String name = full.substring(full.lastIndexOf('.') + 1);
                        sums.get(name)[variant] += result.getPrimaryResult().getScore();
                    }
                    ProbeCommand.deleteTree(out);
                }
            }
        } finally {
            ProbeCommand.deleteTree(work);
        }
        System.out.println();
        System.out.println("dprof bench handoff: " + started + ", " + Machine.describe() + ", " + rounds
                + " rounds, load average " + loadBefore + " before, " + Machine.loadAverage() + " after");
        System.out.printf(Locale.ROOT, "%-12s %14s %14s %8s%n", "benchmark", "on ops/µs", "off ops/µs", "on/off");
        boolean met = true;
        for (Map.Entry<String, double[]> e : sums.entrySet()) {
            double on = e.getValue()[0] / rounds;
            double off = e.getValue()[1] / rounds;
            double ratio = on / off;
            met &= ratio >= TARGET_RATIO;
            System.out.printf(Locale.ROOT, "%-12s %14.3f %14.3f %8.3f%n", e.getKey(), on, off, ratio);
        }
        System.out.println("target: on/off ≥ " + TARGET_RATIO + (met ? " (met)" : " (NOT met)"));
        return 0;
    }

    private static List<RunResult> runJmh(Path agentJar, Path yaml, Path out, String handoffs, boolean quick)
            throws Exception {
        Options opts = new OptionsBuilder()
                .include(HandoffBench.class.getName() + "\\.(" + String.join("|", BENCHMARKS) + ")$")
                .forks(1)
                .warmupIterations(quick ? 1 : 3)
                .warmupTime(TimeValue.milliseconds(quick ? 300 : 1000))
                .measurementIterations(quick ? 2 : 5)
                .measurementTime(TimeValue.milliseconds(quick ? 300 : 1000))
                .jvmArgsAppend(ProbeConfig.javaagent(agentJar, yaml, out) + ",handoffs=" + handoffs)
                .shouldFailOnError(true)
                .verbosity(VerboseMode.NORMAL)
                .build();
        return new ArrayList<>(new Runner(opts).run());
    }
}
