package dev.dprof.cli;

import dev.dprof.agent.config.ConfigException;
import dev.dprof.agent.config.ConfigLoader;
import dev.dprof.cli.suggest.AttachedRecording;
import dev.dprof.cli.suggest.LaunchedRecording;
import dev.dprof.cli.suggest.MethodFilter;
import dev.dprof.cli.suggest.RecordingReader;
import dev.dprof.cli.suggest.SuggestionYaml;
import dev.dprof.cli.suggest.Tally;
import dev.dprof.cli.suggest.WaitKind;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code dprof suggest}: records a run with the JDK Flight Recorder — a program it starts, a running JVM it
 * attaches to, or recordings already made — and writes a {@code dprof.yaml} of the regions worth timing
 * (docs/CONFIG.md, "Regions found for you"; the logic is in {@link dev.dprof.cli.suggest}).
 */
@Command(name = "suggest", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Record a run with the JDK Flight Recorder and write a dprof.yaml of the methods worth timing:",
                "the top methods by inclusive time, pool workers' tasks, and where threads wait.",
                "  dprof suggest [--seconds N] -- java [OPTIONS] MainClass [ARGS]   (or -- -jar app.jar ...)",
                "  dprof suggest --pid PID --seconds N",
                "  dprof suggest --from recording.jfr ..."})
public final class SuggestCommand implements Callable<Integer> {
    @Option(names = "--pid", paramLabel = "PID", description = "attach to this running JVM (with --seconds)")
    Long pid;

    @Option(names = "--seconds", paramLabel = "N", description = "how long to record: a launched command is ended"
            + " after N s (default: until it exits); an attached JVM is recorded N s")
    Integer seconds;

    @Option(names = "--from", paramLabel = "FILE", arity = "1..*", description = "read these flight recordings"
            + " (.jfr) instead of recording")
    List<Path> from = new ArrayList<>();

    @Option(names = "--top", paramLabel = "N", defaultValue = "10",
            description = "at most N methods for time, N pool tasks and N wait sites (default: ${DEFAULT-VALUE})")
    int top;

    @Option(names = "--include", paramLabel = "GLOB", description = "only classes matching this YAML class glob"
            + " (repeatable; may name JDK classes), e.g. 'com.example.**'")
    List<String> include = new ArrayList<>();

    @Option(names = "--exclude", paramLabel = "GLOB", description = "never classes matching this glob (repeatable);"
            + " the JDK's and dprof's own are excluded unless --include names them")
    List<String> exclude = new ArrayList<>();

    @Option(names = {"-o", "--output"}, paramLabel = "FILE", defaultValue = "dprof.yaml",
            description = "the YAML to write (default: ${DEFAULT-VALUE})")
    Path output;

    @Option(names = "--force", description = "overwrite the output file if it exists")
    boolean force;

    @Parameters(paramLabel = "COMMAND", description = "after --: the command to run and record")
    List<String> command = new ArrayList<>();

    @Override
    public Integer call() throws CliException, InterruptedException {
        int sources = (pid != null ? 1 : 0) + (from.isEmpty() ? 0 : 1) + (command.isEmpty() ? 0 : 1);
        if (sources != 1) {
            throw new CliException("suggest: give one of a command after --, --pid PID or --from FILE"
                    + " (try 'dprof suggest --help')");
        }
        if (pid != null && seconds == null) {
            throw new CliException("suggest: --pid needs --seconds N (how long to record)");
        }
        if (seconds != null && seconds <= 0 || top <= 0) {
            throw new CliException("suggest: --seconds and --top must be positive");
        }
        MethodFilter filter;
        try {
            filter = MethodFilter.of(include, exclude);
        } catch (IllegalArgumentException e) {
            throw new CliException(e.getMessage());
        }
        if (Files.exists(output) && !force) {
            throw new CliException(output + ": exists; choose another --output or add --force");
        }
        Tally tally = new Tally(filter);
        RecordingReader reader = new RecordingReader(tally);
        String source;
        Path scratch = null;
        try {
            if (!from.isEmpty()) {
                for (Path file : from) {
                    if (!Files.isRegularFile(file)) {
                        throw new CliException(file + ": no such file");
                    }
                    reader.read(file);
                }
                source = "the recordings " + String.join(", ", from.stream().map(Path::toString).toList());
            } else {
                scratch = Files.createTempDirectory("dprof-suggest");
                if (pid != null) {
                    Path file = scratch.resolve(pid + ".jfr");
                    AttachedRecording.record(pid, Duration.ofSeconds(seconds), file,
                            () -> System.err.println("dprof: recording process " + pid + " for " + seconds + " s"));
                    reader.read(file);
                    source = "process " + pid + ", attached for " + seconds + " s";
                } else {
                    source = launch(reader, scratch);
                }
            }
        } catch (IOException e) {
            throw new CliException(e.getMessage());
        } finally {
            delete(scratch);
        }
        if (tally.applicationSamples() == 0) {
            throw new CliException("no execution samples " + (tally.samples() == 0 ? "" : "in the application's methods ")
                    + "in " + source + " (" + tally.samples() + " samples in all); record longer (--seconds) or a"
                    + " busier run" + (include.isEmpty() ? "" : ", or widen --include"));
        }
        List<Tally.Suggestion> suggestions = tally.suggest(top);
        String yaml = SuggestionYaml.write(header(source, reader, tally), suggestions);
        try {
            // the agent's own loader, as the agent will read it: a file it refuses is this command's bug
            ConfigLoader.parse(yaml, output.toString());
        } catch (ConfigException e) {
            throw new CliException("the suggestion is not a valid dprof.yaml (a bug of dprof suggest): "
                    + e.getMessage());
        }
        try {
            Files.writeString(output, yaml);
        } catch (IOException e) {
            throw new CliException(output + ": cannot write: " + e.getMessage());
        }
        System.out.println("dprof: wrote " + output + ": " + suggestions.size() + " regions from "
                + tally.applicationSamples() + " samples of the application (" + tally.samples() + " in all, "
                + reader.threads() + " threads, " + reader.recordings() + " JVMs)");
        return 0;
    }

    private String launch(RecordingReader reader, Path scratch) throws IOException, InterruptedException,
            CliException {
        Optional<Duration> limit = Optional.ofNullable(seconds).map(Duration::ofSeconds);
        LaunchedRecording.Result run = LaunchedRecording.run(command, limit, scratch);
        String what = String.join(" ", command);
        if (run.recordings().isEmpty()) {
            throw new CliException("no flight recording was written by '" + what + "'"
                    + run.exitCode().map(c -> " (exit code " + c + ")").orElse("")
                    + ": did it start a JVM of JDK 11 or later with JFR (the jdk.jfr module)?");
        }
        for (Path file : run.recordings()) {
            reader.read(file);
        }
        run.exitCode().filter(c -> c != 0).ifPresent(c ->
                System.err.println("dprof: '" + what + "' exited with code " + c + "; suggesting from its recording"));
        return "'" + what + "'" + (run.exitCode().isEmpty() ? ", ended after " + seconds + " s" : "");
    }

    private List<String> header(String source, RecordingReader reader, Tally tally) {
        List<String> lines = new ArrayList<>();
        lines.add("Regions suggested by `dprof suggest` (docs/CONFIG.md, \"Regions found for you\") from " + source
                + ":");
        lines.add(String.format(Locale.ROOT, "%d execution samples (%d in the application's methods) of %d threads"
                        + " in %d JVMs over %.1f s, JDK Flight Recorder.", tally.samples(), tally.applicationSamples(),
                reader.threads(), reader.recordings(), reader.seconds()));
        lines.add("First the top methods by inclusive time, then pool workers' tasks, then where threads waited"
                + (include.isEmpty() ? " (the JDK's and dprof's classes excluded)" : "") + ".");
        Map<WaitKind, long[]> outside = tally.waitsOutside();
        List<String> waits = outside.entrySet().stream().filter(e -> e.getKey() != WaitKind.POOL_IDLE)
                .sorted(Comparator.comparingLong(e -> -e.getValue()[1]))
                .map(e -> e.getValue()[0] + " " + e.getKey().plural() + " (" + Tally.seconds(e.getValue()[1]) + ")")
                .toList();
        if (!waits.isEmpty()) {
            lines.add("Waits with no application method on the stack: " + String.join(", ", waits) + ".");
        }
        return lines;
    }

    private static void delete(Path dir) {
        if (dir == null) {
            return;
        }
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            System.err.println("dprof: cannot delete " + dir + ": " + e.getMessage());
        }
    }
}
