package dev.dprof.examples.worker;

import java.util.Map;

/** The {@code main} of every worker: parse, run, print, exit with a code that says what happened. */
public final class Main {
    /** Bad command line. */
    public static final int USAGE = 2;
    /** The run failed. */
    public static final int FAILED = 1;

    /** An example's run. */
    @FunctionalInterface
    public interface Job {
        Outcome run(Args args) throws Exception;
    }

    private Main() {
    }

    public static void run(String app, String[] argv, Map<String, String> defaults, Job job) {
        Args args;
        try {
            args = Args.parse(argv, defaults);
        } catch (IllegalArgumentException e) {
            System.err.println(app + ": " + e.getMessage());
            System.exit(USAGE);
            return;
        }
        int code = 0;
        try {
            Outcome outcome = job.run(args);
            for (String line : outcome.summary()) {
                System.out.println(app + ": rank " + args.rank() + " " + line);
            }
            if (outcome.lapsLine() != null) {
                System.out.println(outcome.lapsLine());
            }
            if (outcome.cpuLine() != null) {
                System.out.println(outcome.cpuLine());
            }
            System.out.println(outcome.spanLine());
        } catch (Exception e) {
            System.err.println(app + ": rank " + args.rank() + " failed:");
            e.printStackTrace();
            code = FAILED;
        }
        System.out.flush();
        System.err.flush();
        // the exit also ends threads a failure may have left blocked
        System.exit(code);
    }
}
