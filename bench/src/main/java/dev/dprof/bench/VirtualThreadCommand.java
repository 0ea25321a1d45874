package dev.dprof.bench;

import dev.dprof.consolidator.read.RunDirs;
import dev.dprof.format.EventKind;
import dev.dprof.testsupport.Jdks;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Locale;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * {@code ./dprof bench vthreads [--jdk HOME] [--quick]}: what the agent adds to a virtual thread's
 * unmount and mount ({@link VirtualThreadBench}), as the ratio of {@code Thread.yield()} with the agent
 * to the same with an agent that does nothing ({@link NoopAgent}), all measured in this command, one
 * after the other, on the same JDK (21 or later; by default the first under {@code /usr/lib/jvm}).
 * Target: at most {@value #TARGET_RATIO} × that baseline: any {@code -javaagent} makes the JVM turn
 * every mount into a JVMTI transition, which is the JVM's price for an agent, not dprof's. The ratio
 * to no agent at all is printed beside it, and a fourth run, the agent with those transitions off
 * ({@link #NO_JVMTI_TRANSITIONS}), splits the difference the other way. The forks with the agent
 * must have recorded mounts and lost nothing, or the command fails.
 */
final class VirtualThreadCommand {
    static final double TARGET_RATIO = 1.5;

    private VirtualThreadCommand() {
    }

    static int run(List<String> args) throws Exception {
        Path jdk = null;
        boolean quick = false;
        for (int i = 0; i < args.size(); i++) {
            switch (args.get(i)) {
                case "--jdk" -> jdk = Path.of(args.get(++i));
                case "--quick" -> quick = true;
                default -> {
                    return BenchMain.usage("vthreads: unknown argument '" + args.get(i) + "'");
                }
            }
        }
        if (jdk == null) {
            jdk = Jdks.find(Jdks.MODERN, true).orElse(null);
        }
        if (jdk == null || !Files.isExecutable(jdk.resolve("bin/java"))) {
            System.err.println("dprof bench vthreads: no JDK 21 or later (give --jdk HOME)");
            return 2;
        }
        Path agentJar = BenchMain.agentJar();
        if (agentJar == null) {
            return 1;
        }
        Path work = Files.createTempDirectory("dprof-bench-vt");
        // The probe benchmark's rings (256 MiB): lossless while a thread yields millions of times a second.
        Path yaml = ProbeConfig.write(work);
        Path out = Files.createDirectories(work.resolve("queues"));
        OffsetDateTime started = OffsetDateTime.now().truncatedTo(ChronoUnit.SECONDS);
        String loadBefore = Machine.loadAverage();

        String agent = ProbeConfig.javaagent(agentJar, yaml, out);
        RunResult noAgentRun = measure(jdk, new String[0], quick);
        RunResult baselineRun = measure(jdk, new String[] {"-javaagent:" + NoopAgent.writeJar(work)}, quick);
        RunResult withAgentRun = measure(jdk, new String[] {agent}, quick);
        RunResult withoutTransitionsRun = measure(jdk, new String[] {NO_JVMTI_TRANSITIONS[0], NO_JVMTI_TRANSITIONS[1],
            agent}, quick);
        Result<?> noAgent = noAgentRun.getPrimaryResult();
        Result<?> baseline = baselineRun.getPrimaryResult();
        Result<?> withAgent = withAgentRun.getPrimaryResult();
        Result<?> withoutTransitions = withoutTransitionsRun.getPrimaryResult();

        long mounts = 0;
        boolean lossless = true;
        for (Path q : RunDirs.expand(List.of(out))) {
            QueueTally t = QueueTally.read(q, true);
            mounts += t.kinds[EventKind.VT_MOUNT.code];
            lossless &= t.lossless();
            System.out.println("dprof bench vthreads: " + t);
        }
        double ratio = withAgent.getScore() / baseline.getScore();
        double ratioError = ratio * Math.hypot(withAgent.getScoreError() / withAgent.getScore(),
                baseline.getScoreError() / baseline.getScore());
        double addedNs = withAgent.getScore() - baseline.getScore();
        System.out.println();
        System.out.println("dprof bench vthreads — " + started + ", " + Machine.describe() + ", JDK " + jdk);
        System.out.println("load average (1, 5, 15 min): " + loadBefore + " before, " + Machine.loadAverage()
                + " after; " + Machine.NOTE);
        System.out.printf(Locale.ROOT, "Thread.yield() on a virtual thread (unmount + mount), ns/op:%n");
        System.out.printf(Locale.ROOT, "  no agent             %.1f ± %.1f (median of iterations %.1f)%n", noAgent.getScore(),
                noAgent.getScoreError(), noAgent.getStatistics().getPercentile(50));
        System.out.printf(Locale.ROOT, "  baseline (a no-op -javaagent) %.1f ± %.1f (median of iterations %.1f): the JVM's price"
                + " for any agent, %.1f ns per unmount + mount%n", baseline.getScore(),
                baseline.getScoreError(), baseline.getStatistics().getPercentile(50),
                baseline.getScore() - noAgent.getScore());
        System.out.printf(Locale.ROOT, "  with the agent       %.1f ± %.1f (median of iterations %.1f)%n", withAgent.getScore(),
                withAgent.getScoreError(), withAgent.getStatistics().getPercentile(50));
        double medianRatio = withAgent.getStatistics().getPercentile(50) / baseline.getStatistics().getPercentile(50);
        System.out.printf(Locale.ROOT, "  ratio of the medians %.3f%n", medianRatio);
        System.out.printf(Locale.ROOT, "  added by dprof per unmount + mount: %.1f ns; ratio %.3f ± %.3f (target ≤ %.1f): %s;"
                + " against no agent %.3f%n", addedNs, ratio, ratioError, TARGET_RATIO, ratio <= TARGET_RATIO ? "PASS" : "FAIL",
                withAgent.getScore() / noAgent.getScore());
        double addedToNoAgent = withAgent.getScore() - noAgent.getScore();
        double jvmti = withAgent.getScore() - withoutTransitions.getScore();
        System.out.printf(Locale.ROOT, "  with the agent and -XX:-DoJVMTIVirtualThreadTransitions %.1f ± %.1f: of the %.1f ns"
                + " added to no agent, %.1f are the JVM's JVMTI mount transitions (on in every JVM with a -javaagent), %.1f the "
                + "agent's own (ratio to no agent without them %.3f)%n", withoutTransitions.getScore(),
                withoutTransitions.getScoreError(), addedToNoAgent, jvmti, addedToNoAgent - jvmti,
                withoutTransitions.getScore() / noAgent.getScore());
        System.out.printf(Locale.ROOT, "  the carrier's CPU time per yield (not the wall time: see VirtualThreadBench.CarrierCpu): "
                + "no agent %s, no-op agent %s, with the agent %s, without the JVMTI transitions %s%n", carrierCpu(noAgentRun),
                carrierCpu(baselineRun),
                carrierCpu(withAgentRun), carrierCpu(withoutTransitionsRun));
        System.out.printf(Locale.ROOT, "  mounts recorded by the agent's forks: %d, lossless: %s%n", mounts, lossless);
        if (mounts == 0 || !lossless) {
            System.out.println("!!! dprof bench vthreads FAILED: the agent recorded no mount, or lost events");
            return 1;
        }
        return 0;
    }

    /** The carrier's CPU ns per yield over all measured iterations, or "n/a" without {@code /proc}. */
    private static String carrierCpu(RunResult r) {
        Result<?> cpu = r.getSecondaryResults().get("carrierCpuNanos");
        Result<?> yields = r.getSecondaryResults().get("yields");
        if (cpu == null || yields == null || cpu.getScore() <= 0 || yields.getScore() <= 0) {
            return "n/a";
        }
        return String.format(Locale.ROOT, "%.1f ns", cpu.getScore() / yields.getScore());
    }

    /**
     * Virtual benchmark threads on a scheduler of one carrier: with two, a yield sometimes resumed on
     * the other carrier, and both sides' iterations were bimodal (about 300 ns and 600–800 ns per op),
     * so the ratio measured where the scheduler put the thread more than the agent's two probes.
     */
    static final String[] ONE_CARRIER = {"-Djmh.executor=VIRTUAL", "-Djdk.virtualThreadScheduler.parallelism=1",
        "-Djdk.virtualThreadScheduler.maxPoolSize=1"};

    /**
     * The JVM's own share of the agent's cost: with any {@code -javaagent} (a JVMTI environment)
     * HotSpot makes every mount and unmount a JVMTI transition (notifyJvmtiMount/Unmount do work:
     * {@code JvmtiVTMSTransitionDisabler} in a profile), which this experimental flag turns off. A
     * measurement with it separates what the agent's code costs from what loading any agent costs,
     * the other way round from the no-op agent.
     */
    static final String[] NO_JVMTI_TRANSITIONS = {"-XX:+UnlockExperimentalVMOptions",
        "-XX:-DoJVMTIVirtualThreadTransitions"};

    private static String[] append(String[] args, String[] more) {
        String[] all = java.util.Arrays.copyOf(args, args.length + more.length);
        System.arraycopy(more, 0, all, args.length, more.length);
        return all;
    }

    private static RunResult measure(Path jdk, String[] extra, boolean quick) throws RunnerException {
        ChainedOptionsBuilder opts = new OptionsBuilder()
                .include(VirtualThreadBench.class.getName() + "\\.yield$")
                .jvm(jdk.resolve("bin/java").toString())
                .jvmArgsAppend(append(ONE_CARRIER, extra))
                .forks(quick ? 1 : 3)
                .warmupIterations(quick ? 2 : 5)
                .warmupTime(TimeValue.seconds(1))
                .measurementIterations(quick ? 3 : 8)
                .measurementTime(TimeValue.seconds(1))
                .shouldFailOnError(true)
                .verbosity(VerboseMode.NORMAL);
        return new Runner(opts.build()).runSingle();
    }
}
