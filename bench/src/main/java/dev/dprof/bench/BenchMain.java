package dev.dprof.bench;

import dev.dprof.settings.DprofSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * {@code ./dprof bench COMMAND …}: the benchmarks, each a command. The launcher passes
 * {@code -Ddprof.jar=<agent/jar/target/dprof.jar>}, the agent every benchmark attaches to its forks.
 */
public final class BenchMain {
    private BenchMain() {
    }

    public static void main(String[] args) {
        int rc;
        try {
            rc = run(Arrays.asList(args));
        } catch (Exception e) {
            System.err.println("dprof bench: " + e);
            e.printStackTrace();
            rc = 1;
        }
        System.exit(rc);
    }

    static int run(List<String> args) throws Exception {
        if (args.isEmpty() || args.get(0).equals("-h") || args.get(0).equals("--help") || args.get(0).equals("help")) {
            System.out.println(USAGE);
            return args.isEmpty() ? 2 : 0;
        }
        return switch (args.get(0)) {
            case "probe" -> ProbeCommand.run(args.subList(1, args.size()));
            case "consolidate" -> ConsolidateCommand.run(args.subList(1, args.size()));
            case "overhead" -> OverheadCommand.run(args.subList(1, args.size()));
            case "conversion" -> ConversionCommand.run(args.subList(1, args.size()));
            case "export" -> ExportCommand.run(args.subList(1, args.size()));
            case "handoff" -> HandoffCommand.run(args.subList(1, args.size()));
            case "vthreads" -> VirtualThreadCommand.run(args.subList(1, args.size()));
            case "startup" -> StartupCommand.run(args.subList(1, args.size()));
            default -> usage("unknown benchmark '" + args.get(0) + "'");
        };
    }

    /**
     * The agent jar the benchmarks attach ({@link DprofSettings#agentJar()}, which {@code ./dprof}
     * sets); null, after saying why, when it is not set or missing.
     */
    static Path agentJar() {
        Optional<Path> jar = DprofSettings.agentJar();
        if (jar.isEmpty() || !Files.isRegularFile(jar.get())) {
            System.err.println("dprof bench: the agent jar is missing (-D" + DprofSettings.AGENT_JAR_PROPERTY + "="
                    + jar.map(Path::toString).orElse("") + "); run through ./dprof bench, which builds it");
            return null;
        }
        return jar.get().toAbsolutePath();
    }

    static int usage(String problem) {
        System.err.println("dprof bench: " + problem);
        System.err.println(USAGE);
        return 2;
    }

    static final String USAGE = """
            usage: ./dprof bench startup [--runs N] [--jdk HOME] [--cpus LIST] [--agent-args ARGS] [--json FILE]

              startup  launch to exit of a trivial program and of one using a pool and a queue, without the agent,
                       with it and handoffs=off, with it and handoffs auto (default); a YAML of one region; one
                       untimed round then N (10) alternating rounds, pinned with taskset to CPUs LIST (default all):
                       medians of wall time, time to main's first line, CPU and peak RSS; target: the agent adds
                       ≤ 0.5 s and ≤ 32 MiB. About 1 minute.
                --jdk HOME        the JDK the programs run on (default: this one)
                --agent-args ARGS appended to the agent's argument, e.g. warmup=false

            usage: ./dprof bench vthreads [--jdk HOME] [--quick]

              vthreads  a virtual thread's unmount + mount (Thread.yield() on a virtual JMH thread) with the
                       agent against the same without it, both in this run, on a JDK of 21 or later (default:
                       the first under /usr/lib/jvm); target ratio ≤ 1.5. About 2 minutes (--quick: 30 s).

            usage: ./dprof bench conversion [--json FILE] [--quick]
                   ./dprof bench probe [--json FILE] [--quick] [--keep] [--ring-events N]

              conversion  sound conversion of sorted ticks vs a double a + b·k, in one JMH run;
                       target ratio of throughputs ≥ 0.5. About 1 minute.
              probe    the cost of one probe event (JMH, forks with the agent attached) next to the
                       floor (JNI rdtsc + one ring store) and a JFR event; disk bytes and heap
                       bytes per event. About 3 minutes. Fails if any event was lost.
                --json FILE  also write the figures as JSON
                --quick      short JMH iterations, one fork: a smoke run, not for BENCHMARKS.md
                --keep       keep the temporary directory (config, queues of the disk run)
                --ring-events N  the agent's per-thread ring in events (default 8388608, lossless at full
                             speed; a ring larger than the L2 costs the probe a few ns, see BENCHMARKS.md)

            usage: ./dprof bench handoff [--rounds R] [--quick]

              handoff  queue-heavy handoffs (producer/consumer through ArrayBlockingQueue and LinkedBlockingQueue,
                       tasks into a ThreadPoolExecutor, two threads taking turns through LockSupport.park) in JMH
                       forks with the agent, handoffs on and off alternately, R rounds (2): throughput on/off per
                       benchmark; target ≥ 0.5. About 3 minutes.

            usage: ./dprof bench handoff --cpu [--rounds R] [--handoffs N]

              handoff --cpu  CPU ns per handoff (offer + poll on one thread, ArrayBlockingQueue and
                       LinkedBlockingQueue) of the application's thread and of the agent's drainer, from
                       /proc/…/schedstat: forks without the agent, with handoffs=off and with handoffs=auto,
                       turning order, R rounds (3) of N handoffs (4 000 000); median and range. About 2 minutes.

            usage: ./dprof bench consolidate [--events N] [--processes P] [--threads T] [--iterations I]
                                             [--repeats R] [--xmx SIZE] [--truth] [--json FILE] [--jfr FILE]
                                             [--work DIR] [--keep]

              consolidate  end-to-end consolidation from disk with FreeZer: a synthetic run of N events
                       (default 20000000) in P processes (8) of T threads (4), I iterations (500), written as
                       real queues, consolidated in fresh JVMs with a fixed heap (1g), R times (3): events/s,
                       peak heap at N and N/10 events, sound vs linear conversion. About 5 minutes.
                --truth      simulated runs as the agent writes them (a truth column); default: like real machines
                --jfr FILE   also record one consolidation with JFR (settings=profile)
                --work DIR   keep the traces in DIR and reuse them when the arguments match

            usage: ./dprof bench export [--events N] [--processes P] [--threads T] [--iterations I] [--budget S]
                                        [--repeats R] [--xmx SIZE] [--work DIR] [--keep]

              export   the Perfetto trace of the consolidate benchmark's profile (same run and arguments; with --work
                       the two share it), consolidated once, exported R times (3) in fresh JVMs with a fixed heap (1g)
                       under a slice budget S (default 2000000): wall time, file size, slices, flows, peak heap.
                       About 3 minutes after the run is generated and consolidated.

            usage: ./dprof bench overhead [--app kmeans] [--runs 5] [--warmup 1] [--workers 4] [--threads 2]
                                          [--iterations I] [--config YAML] [--agent-args ARGS] [--jvm-arg ARG]...
                                          [--json FILE] [--keep] [-- APP_OPTIONS...]

              overhead  the agent's cost to a real cluster: the example (kmeans, pagerank, cc, service) with its
                       YAML, run with and without the agent, alternating, R times each (5) after warm-up pairs;
                       median and IQR of the longest iteration span per run, slowdown = median ratio - 1
                       (target <= 1%) with a 95% bootstrap interval. About 2 minutes for kmeans.
                --config YAML      the agent's YAML instead of the example's own
                --agent-args ARGS  appended to the agent's argument, e.g. warmup=false
                --jvm-arg ARG      a JVM option for every worker, with and without the agent""";
}
