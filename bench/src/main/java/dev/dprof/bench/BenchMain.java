package dev.dprof.bench;

import java.util.Arrays;
import java.util.List;

/**
 * {@code ./dprof bench COMMAND …}: the benchmarks, each a command. The launcher passes
 * {@code -Ddprof.jar=<cli/target/dprof.jar>}, the agent every benchmark attaches to its forks.
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
            default -> usage("unknown benchmark '" + args.get(0) + "'");
        };
    }

    static int usage(String problem) {
        System.err.println("dprof bench: " + problem);
        System.err.println(USAGE);
        return 2;
    }

    static final String USAGE = """
            usage: ./dprof bench probe [--json FILE] [--quick] [--keep]

              probe    the cost of one probe event (JMH, forks with the agent attached) next to the
                       floor (JNI rdtsc + one ring store) and a JFR event; disk bytes and heap
                       bytes per event. About 3 minutes. Fails if any event was lost.
                --json FILE  also write the figures as JSON
                --quick      short JMH iterations, one fork: a smoke run, not for BENCHMARKS.md
                --keep       keep the temporary directory (config, queues of the disk run)""";
}
