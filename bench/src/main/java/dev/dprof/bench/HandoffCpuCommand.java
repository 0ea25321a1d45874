package dev.dprof.bench;

import dev.dprof.consolidator.read.RunDirs;
import dev.dprof.settings.DprofSettings;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code ./dprof bench handoff --cpu [--rounds R] [--handoffs N]}: where a queue handoff's CPU time
 * goes, the application's thread's and the agent drainer's, per handoff ({@link HandoffCpuProgram}).
 * Each round forks, for {@code ArrayBlockingQueue} and {@code LinkedBlockingQueue}, one JVM without
 * the agent, one with {@code handoffs=off} and one with {@code handoffs=auto}, in an order that
 * turns each round so that no variant always runs first; the figures are the median (and range)
 * over the rounds. CPU time comes from schedstat, so the host's load changes the wall time of a
 * fork, not the figures (the load is printed all the same). The forks with the agent must lose no
 * event, or the command fails.
 */
final class HandoffCpuCommand {
    static final String[] QUEUES = {"array", "linked"};
    /** The variants: no agent, then the agent's {@code handoffs=} values. */
    static final String[] VARIANTS = {"none", "off", "auto"};
    /**
     * Handoffs per fork: two events each, fewer than the ring holds ({@link ProbeConfig#RING_EVENTS}),
     * so that nothing is dropped even when the loaded host gives the drainer no CPU during the loop
     * (10 M lost 9% at a load average of 28); the drainer's work per event is the same whether it
     * drains during the loop or after it.
     */
    static final long DEFAULT_HANDOFFS = 4_000_000L;
    static final long WARMUP_HANDOFFS = 4_000_000L;

    private HandoffCpuCommand() {
    }

    static int run(List<String> args) throws Exception {
        int rounds = 3;
        long handoffs = DEFAULT_HANDOFFS;
        for (int i = 0; i < args.size(); i++) {
            switch (args.get(i)) {
                case "--rounds" -> rounds = i + 1 < args.size() ? Integer.parseInt(args.get(++i)) : -1;
                case "--handoffs" -> handoffs = i + 1 < args.size() ? Long.parseLong(args.get(++i)) : -1;
                default -> {
                    return BenchMain.usage("unknown argument to handoff --cpu: " + args.get(i));
                }
            }
        }
        if (rounds < 1 || handoffs < 1) {
            return BenchMain.usage("--rounds and --handoffs need a positive number");
        }
        Path agentJar = BenchMain.agentJar();
        if (agentJar == null) {
            return 1;
        }
        Path work = Files.createTempDirectory("dprof-bench-handoff-cpu-");
        // Rings of the probe benchmark (256 MiB): nothing is dropped while one thread records tens of
        // millions of events a second and the drainer shares a loaded machine.
        Path yaml = Files.writeString(work.resolve("dprof.yaml"), "# no regions: only the handoffs\n"
                + "clock: rdtsc\nringEvents: " + ProbeConfig.RING_EVENTS + "\nannotations: false\n");
        OffsetDateTime started = OffsetDateTime.now().truncatedTo(ChronoUnit.SECONDS);
        String loadBefore = Machine.loadAverage();
        Map<String, List<HandoffCpu.Fork>> forks = new LinkedHashMap<>();
        Map<String, List<Double>> bytesPerEvent = new LinkedHashMap<>();
        boolean lossless = true;
        try {
            for (int r = 0; r < rounds; r++) {
                for (String queue : QUEUES) {
                    for (int v = 0; v < VARIANTS.length; v++) {
                        String variant = VARIANTS[(v + r) % VARIANTS.length];
                        Path out = work.resolve("queues-" + r + "-" + queue + "-" + variant);
                        HandoffCpu.Fork fork = fork(agentJar, yaml, out, queue, variant, handoffs);
                        forks.computeIfAbsent(queue + " " + variant, k -> new ArrayList<>()).add(fork);
                        System.out.printf(Locale.ROOT, "round %d %-6s %-4s app %.1f ns, drainer %.1f ns per handoff%n",
                                r + 1, queue, variant, fork.appPerHandoff(), fork.drainerPerHandoff());
                        if (!variant.equals("none")) {
                            double bytes = lossless(out);
                            lossless &= bytes >= 0;
                            bytesPerEvent.computeIfAbsent(queue + " " + variant, k -> new ArrayList<>()).add(bytes);
                        }
                        ProbeCommand.deleteTree(out);
                    }
                }
            }
        } finally {
            ProbeCommand.deleteTree(work);
        }
        System.out.println();
        System.out.println("dprof bench handoff --cpu: " + started + ", " + Machine.describe() + ", " + rounds
                + " rounds of " + handoffs + " handoffs, load average " + loadBefore + " before, "
                + Machine.loadAverage() + " after");
        System.out.println("CPU ns per handoff (offer + poll on one thread), median (min–max) over the rounds:");
        System.out.printf(Locale.ROOT, "%-7s %-20s %-20s %-20s %-20s %-20s %-20s %s%n", "queue", "app, no agent",
                "app, off", "app, auto", "drainer, off", "drainer, auto", "faults/1000, auto", "bytes/event, auto");
        for (String queue : QUEUES) {
            HandoffCpu.Spread[] none = HandoffCpu.perHandoff(forks.get(queue + " none"));
            HandoffCpu.Spread[] off = HandoffCpu.perHandoff(forks.get(queue + " off"));
            HandoffCpu.Spread[] auto = HandoffCpu.perHandoff(forks.get(queue + " auto"));
            System.out.printf(Locale.ROOT, "%-7s %-20s %-20s %-20s %-20s %-20s %-20s %s%n", queue, none[0], off[0],
                    auto[0], off[1], auto[1], auto[2], range(bytesPerEvent.get(queue + " auto")));
        }
        System.out.println("a handoff is two events (HANDOFF_PUT, HANDOFF_TAKE): the drainer's CPU per event is half its"
                + " figure per handoff; faults/1000: the drainer's minor page faults per 1000 handoffs (first touches"
                + " of the queue file's pages); bytes/event: the batches' bytes in the queue per event (min–max over"
                + " the rounds)");
        if (!lossless) {
            System.out.println("!!! dprof bench handoff --cpu FAILED: a fork with the agent lost events");
            return 1;
        }
        return 0;
    }

    /** Runs one fork of {@link HandoffCpuProgram}; {@code variant} none runs it without the agent. */
    private static HandoffCpu.Fork fork(Path agentJar, Path yaml, Path out, String queue, String variant,
                                        long handoffs) throws IOException, InterruptedException {
        Files.createDirectories(out);
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(DprofSettings.chronicleJvmFlags());
        if (!variant.equals("none")) {
            cmd.add(ProbeConfig.javaagent(agentJar, yaml, out) + ",handoffs=" + variant);
        }
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(HandoffCpuProgram.class.getName());
        cmd.add(queue);
        cmd.add(Long.toString(handoffs));
        cmd.add(Long.toString(WARMUP_HANDOFFS));
        Path log = out.resolve("fork.log");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        int rc = p.waitFor();
        List<String> output = Files.readAllLines(log, StandardCharsets.UTF_8);
        if (rc != 0) {
            throw new IOException("the handoff --cpu fork exited with " + rc + ": " + String.join(" ", cmd) + "\n"
                    + String.join("\n", output));
        }
        Files.delete(log);
        return HandoffCpu.parse(output);
    }

    /**
     * The batches' bytes per event in the fork's queues, or -1 unless they prove that nothing was
     * dropped.
     */
    private static double lossless(Path out) throws Exception {
        boolean all = true;
        List<Path> queues = RunDirs.expand(List.of(out));
        if (queues.isEmpty()) {
            System.out.println("no process queue under " + out);
            return -1;
        }
        long bytes = 0;
        long events = 0;
        for (Path q : queues) {
            QueueTally t = QueueTally.read(q, false);
            if (!t.lossless()) {
                System.out.println("lost events: " + t);
                all = false;
            }
            bytes += t.batchBytes;
            events += t.events;
        }
        return all && events > 0 ? (double) bytes / events : -1;
    }

    private static String range(List<Double> values) {
        double min = values.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
        double max = values.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
        return String.format(Locale.ROOT, "%.2f–%.2f", min, max);
    }
}
