package dev.dprof.cli;

import dev.dprof.consolidator.read.ReadException;
import dev.dprof.consolidator.read.RunDirs;
import dev.dprof.consolidator.stats.RunStatistics;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code dprof demo}: runs a bundled example with the agent attached, then reads what it recorded.
 * The example JVM gets nothing but {@code -javaagent} and the example's YAML.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "Run the bundled K-Means example with the agent and print per-region statistics.")
public final class DemoCommand implements Callable<Integer> {
    @Option(names = "--threads", defaultValue = "4", description = "worker threads (default ${DEFAULT-VALUE})")
    int threads;

    @Option(names = "--straggler", defaultValue = "1", description = "the thread given extra work (default ${DEFAULT-VALUE})")
    int straggler;

    @Option(names = "--imbalance", defaultValue = "2", description = "the straggler's share of work, times normal (default ${DEFAULT-VALUE})")
    double imbalance;

    @Option(names = "--iterations", defaultValue = "20", description = "K-Means iterations (default ${DEFAULT-VALUE})")
    int iterations;

    @Option(names = "--out", defaultValue = "dprof-demo", description = "output folder (default ${DEFAULT-VALUE})")
    Path out;

    @Option(names = "--json", paramLabel = "FILE", description = "also write the statistics as JSON")
    Path json;

    @Override
    public Integer call() throws CliException, IOException, InterruptedException {
        Path home = Launch.home();
        Path runs = out.resolve("runs");
        Files.createDirectories(runs);
        Path config = home.resolve("examples/kmeans/dprof.yaml");
        List<String> command = new ArrayList<>(Launch.javaWithAgent(config, runs));
        command.add("-Dkmeans.threads=" + threads);
        command.addAll(List.of("-cp", Launch.examplesJar(home).toString(), "dev.dprof.examples.kmeans.LocalKMeans",
                "--threads", Integer.toString(threads), "--iterations", Integer.toString(iterations),
                "--straggler", Integer.toString(straggler), "--imbalance", Double.toString(imbalance)));
        System.out.println("dprof demo: K-Means, " + threads + " threads, thread " + straggler + " does "
                + imbalance + "x the work");
        Launch.runToCompletion(command, "the K-Means example");
        RunStatistics stats;
        try {
            stats = RunStatistics.of(RunDirs.expand(List.of(runs)));
        } catch (ReadException e) {
            throw new CliException(e.getMessage());
        }
        StatsCommand.print(stats, System.out);
        if (json != null) {
            Json.write(json, StatsCommand.toJson(stats));
        }
        return 0;
    }
}
