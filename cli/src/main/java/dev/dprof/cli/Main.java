package dev.dprof.cli;

import dev.dprof.consolidator.read.Damage;
import dev.dprof.settings.DprofSettings;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code dprof} command line: {@code ./dprof} at the repository root, which runs this class from
 * {@code dprof-cli.jar} with the test bed's and the demo's jars beside it on the class path. Those two
 * live in modules of their own (they drive the tools, the tools do not need them) and are added when
 * present, so the command line works without them too. Every subcommand has {@code --help}; an error
 * is one line on stderr and a non-zero exit.
 */
@Command(name = "dprof", mixinStandardHelpOptions = true, version = "dprof 0.1.0",
        description = "Distributed JVM profiler whose results are bounds proven by clock calibration.",
        subcommands = {StatsCommand.class, AttachCommand.class, CalibrationCommand.class,
                CalibrateCommand.class, ConsolidateCommand.class, AnalyzeCommand.class, ReportCommand.class,
                SuggestCommand.class})
public final class Main {
    /** The commands of the demo and test-bed modules, registered when their jars are on the class path. */
    private static final String[] OPTIONAL_COMMANDS = {"dev.dprof.cli.DemoCommand", "dev.dprof.cli.TestbedCommand"};

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
        for (String name : OPTIONAL_COMMANDS) {
            try {
                cli.addSubcommand(Class.forName(name).getDeclaredConstructor().newInstance());
            } catch (ClassNotFoundException e) {
                // that module is not on the class path: its command is not offered
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("cannot create " + name, e);
            }
        }
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
        if (DprofSettings.trace()) {
            e.printStackTrace();
        }
        String message = Damage.describe(e);
        return "unexpected failure: " + message + " (set " + DprofSettings.TRACE_ENV + "=1 for the details)";
    }
}
