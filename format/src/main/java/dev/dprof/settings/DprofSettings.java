package dev.dprof.settings;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The one owner of every {@code dprof.*} system property and every environment variable dprof reads,
 * but the one the bootstrap classes read ({@code dev.dprof.agent.bootstrap.BootstrapSettings}), and
 * of the JVM flags Chronicle needs. Each is listed with its default and its reader in
 * {@code docs/CONFIG.md}, "System properties and environment variables"; a test fails the build
 * when code reads a property or a variable that is not declared here or not listed there.
 *
 * <p>Why here and why two classes: {@code format} is the one module every other module of dprof
 * depends on (the agent's isolated part, the calibrator, the consolidator, the command line, the
 * benchmarks; the examples at compile time only, for the names), so one class can serve them all.
 * Only the bootstrap classes cannot use it: the agent defines them in the boot loader, where nothing
 * of {@code format} is ever loaded, and so they read their one property themselves.
 *
 * <p>Every value is read when asked, none is cached and none can be changed from here: no setting is
 * on a hot path (a caller that needs one on its hot path keeps it in a {@code static final} field of
 * its own, as {@code ProbeTargets} does), and reading late keeps a value given with
 * {@code System.setProperty} before the first use honoured.
 */
public final class DprofSettings {
    /** Simulates this machine's clock ({@code rate=…,offset=…}; {@code SimulatedClock.parse}); wins over {@link #SIM_CLOCK_ENV}. */
    public static final String SIM_CLOCK_PROPERTY = "dprof.clock.sim";
    /** The same as {@link #SIM_CLOCK_PROPERTY}, for processes whose command line a launcher does not own. */
    public static final String SIM_CLOCK_ENV = "DPROF_SIM_CLOCK";
    /** The host name the agent and the calibrator record, when the shell exports it (else the resolver's). */
    public static final String HOSTNAME_ENV = "HOSTNAME";
    /** The calibration key file, when neither a YAML {@code keyFile} nor a {@code --key-file} names one. */
    public static final String CALIBRATION_KEY_FILE_ENV = "DPROF_CALIBRATION_KEY_FILE";
    /** Set: an unexpected failure of the command line prints its stack trace. */
    public static final String TRACE_ENV = "DPROF_TRACE";
    /** {@code true}: the agent prints stack traces of weaving failures and the JIT warm-up's time. */
    public static final String DEBUG_PROPERTY = "dprof.debug";
    /**
     * Written, not read, by an agent attached to a running JVM: its woven line, which {@code dprof
     * attach} reads from the target JVM's system properties.
     */
    public static final String ATTACH_REPORT_PROPERTY = "dprof.attach.report";
    /** The repository root, set by the {@code ./dprof} launcher for the commands that start example JVMs. */
    public static final String HOME_PROPERTY = "dprof.home";
    /** The agent jar, set by the {@code ./dprof} launcher (and the build, for the tests). */
    public static final String AGENT_JAR_PROPERTY = "dprof.jar";
    /** Events in the ring of {@code bench probe}'s hand-written {@code limit} probe (a power of two). */
    public static final String BENCH_LIMIT_EVENTS_PROPERTY = "dprof.bench.limitEvents";
    /** Set by the examples' launcher ({@code Cluster}) on each worker; the examples' YAML reads it. */
    public static final String RANK_PROPERTY = "dprof.rank";
    /** Set by the examples' launcher on each worker (workers × threads); the examples' YAML reads it. */
    public static final String PARTICIPANTS_PROPERTY = "dprof.participants";

    /** The ring size of {@code bench probe}'s {@code limit} probe without {@link #BENCH_LIMIT_EVENTS_PROPERTY}. */
    public static final int BENCH_LIMIT_EVENTS_DEFAULT = 1 << 16;
    /** The class-path resource the build writes the root pom's {@code dprof.jvm.flags} into. */
    static final String JVM_FLAGS_RESOURCE = "jvm.flags";

    private DprofSettings() {
    }

    /** A setting's value and where it came from ({@code -Dname} or the variable's name), for messages. */
    public record Value(String value, String origin) {
    }

    /** {@link #SIM_CLOCK_PROPERTY}, else {@link #SIM_CLOCK_ENV}; empty when neither is set or it is blank. */
    public static Optional<Value> simulatedClock() {
        String property = System.getProperty(SIM_CLOCK_PROPERTY);
        Value value = property != null ? new Value(property, "-D" + SIM_CLOCK_PROPERTY)
                : new Value(System.getenv(SIM_CLOCK_ENV), SIM_CLOCK_ENV);
        return value.value() == null || value.value().isBlank() ? Optional.empty() : Optional.of(value);
    }

    /** {@link #HOSTNAME_ENV}, when set and not blank. */
    public static Optional<String> hostName() {
        return nonBlank(System.getenv(HOSTNAME_ENV));
    }

    /** The file {@link #CALIBRATION_KEY_FILE_ENV} names, when set and not blank. */
    public static Optional<Path> calibrationKeyFile() {
        return nonBlank(System.getenv(CALIBRATION_KEY_FILE_ENV)).map(name -> Path.of(name.trim()));
    }

    /** Whether {@link #TRACE_ENV} is set (to anything). */
    public static boolean trace() {
        return System.getenv(TRACE_ENV) != null;
    }

    /** Whether {@link #DEBUG_PROPERTY} is {@code true}. */
    public static boolean debug() {
        return Boolean.getBoolean(DEBUG_PROPERTY);
    }

    /** Leaves {@code line} in {@link #ATTACH_REPORT_PROPERTY} of this JVM, where {@code dprof attach} reads it. */
    public static void publishAttachReport(String line) {
        System.setProperty(ATTACH_REPORT_PROPERTY, line);
    }

    /** Removes what {@link #publishAttachReport} left, before an attach weaves anew. */
    public static void clearAttachReport() {
        System.clearProperty(ATTACH_REPORT_PROPERTY);
    }

    /** {@link #HOME_PROPERTY}, when set and not blank. */
    public static Optional<Path> home() {
        return nonBlank(System.getProperty(HOME_PROPERTY)).map(Path::of);
    }

    /** {@link #AGENT_JAR_PROPERTY}, when set and not blank. */
    public static Optional<Path> agentJar() {
        return nonBlank(System.getProperty(AGENT_JAR_PROPERTY)).map(Path::of);
    }

    /** {@link #BENCH_LIMIT_EVENTS_PROPERTY} when it is a power of two, else {@link #BENCH_LIMIT_EVENTS_DEFAULT}. */
    public static int benchLimitEvents() {
        int n = Integer.getInteger(BENCH_LIMIT_EVENTS_PROPERTY, BENCH_LIMIT_EVENTS_DEFAULT);
        return n > 0 && (n & (n - 1)) == 0 ? n : BENCH_LIMIT_EVENTS_DEFAULT;
    }

    /**
     * The JVM flags Chronicle needs on JDK 17 and 25 ({@code --add-exports}, {@code --add-opens}) and
     * {@code -Dchronicle.analytics.disable=true}, for every JVM dprof's tools start that reads or
     * writes a queue. Their one source is the root pom's {@code dprof.jvm.flags}, which the build
     * writes into this module's resource {@value #JVM_FLAGS_RESOURCE}; the tests' JVMs get the same
     * property as their {@code argLine}, and the {@code ./dprof} launcher reads the same file.
     */
    public static List<String> chronicleJvmFlags() {
        try (InputStream in = DprofSettings.class.getResourceAsStream(JVM_FLAGS_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(JVM_FLAGS_RESOURCE + " is missing next to " + DprofSettings.class.getName()
                        + ": the build writes it (mvn -B -DskipTests install)");
            }
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
            if (text.isEmpty() || text.contains("${")) {
                throw new IllegalStateException(JVM_FLAGS_RESOURCE + ": not written by the build ('" + text + "')");
            }
            return List.copyOf(Arrays.asList(text.split("\\s+")));
        } catch (IOException e) {
            throw new UncheckedIOException(JVM_FLAGS_RESOURCE + ": " + e.getMessage(), e);
        }
    }

    private static Optional<String> nonBlank(String value) {
        return value == null || value.isBlank() ? Optional.empty() : Optional.of(value);
    }
}
