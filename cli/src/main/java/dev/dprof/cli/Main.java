package dev.dprof.cli;

import dev.dprof.consolidator.read.Damage;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code dprof} command line: {@code ./dprof} at the repository root, or
 * {@code java -jar dprof.jar}. Every subcommand has {@code --help}; an error is one line on
 * stderr and a non-zero exit.
 */
@Command(name = "dprof", mixinStandardHelpOptions = true, version = "dprof 0.1.0",
        description = "Distributed JVM profiler whose results are bounds proven by clock calibration.",
        subcommands = {DemoCommand.class, StatsCommand.class, AttachCommand.class, CalibrationCommand.class,
                CalibrateCommand.class, TestbedCommand.class, ConsolidateCommand.class, AnalyzeCommand.class,
                ReportCommand.class, SuggestCommand.class})
public final class Main {
    public static void main(String[] args) {
        System.setProperty("chronicle.analytics.disable", "true");
        // Chronicle logs through slf4j; its INFO banner is noise, its warnings are not.
        if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        }
        System.exit(run(args));
    }

    /** Runs a command line and returns the exit code. */
    public static int run(String... args) {
        CommandLine cli = new CommandLine(new Main());
        cli.setExecutionExceptionHandler((e, line, parsed) -> {
            line.getErr().println("dprof: " + (e instanceof CliException ? e.getMessage() : unexpected(e)));
            return 1;
        });
        // picocli's own syntax errors (a missing or unknown option): one line, not the usage dump.
        cli.setParameterExceptionHandler((e, line) -> {
            CommandLine where = e.getCommandLine();
            where.getErr().println("dprof: " + e.getMessage().strip().replace('\n', ' ') + " (try '"
                    + where.getCommandSpec().qualifiedName() + " --help')");
            return CommandLine.ExitCode.USAGE;
        });
        try {
            return cli.execute(args);
        } catch (RuntimeException | Error e) {
            // What a command did not turn into one line: still one line, never a class name or a stack trace.
            if (e instanceof VirtualMachineError && !(e instanceof InternalError)) {
                throw e;
            }
            cli.getErr().println("dprof: " + unexpected(e));
            return 1;
        }
    }

    /**
     * A failure no command explained, as one line: its innermost message, without the class names
     * of the exceptions that carried it ({@code DPROF_TRACE=1} prints the trace, for a bug report).
     */
    static String unexpected(Throwable e) {
        if (System.getenv("DPROF_TRACE") != null) {
            e.printStackTrace();
        }
        String message = Damage.describe(e);
        return "unexpected failure: " + message + " (set DPROF_TRACE=1 for the details)";
    }
}
