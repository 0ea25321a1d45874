package dev.dprof.cli.suggest;

import java.nio.file.Path;
import java.util.List;

/**
 * What {@code dprof suggest} asks the JDK Flight Recorder to record, in one place: the events and their
 * settings as a JFR configuration ({@code .jfc}, the format of the JDK's own {@code default.jfc}), given to a
 * launched JVM as a file ({@code -XX:StartFlightRecording=settings=FILE}) and to an attached one as text
 * ({@code FlightRecorderMXBean.setConfiguration}).
 *
 * <ul>
 * <li>{@code jdk.ExecutionSample} every {@value #SAMPLE_PERIOD}: the stacks of threads running Java code,
 * for inclusive time.</li>
 * <li>{@code jdk.ThreadPark}, {@code jdk.JavaMonitorWait}, {@code jdk.SocketRead} and
 * {@code jdk.SocketWrite} of at least {@value #WAIT_THRESHOLD}, with stacks: where threads wait for another
 * thread or for the network. Shorter waits cost the JVM nothing to skip and are no request's bottleneck.</li>
 * <li>{@code jdk.CompilerInlining}: the JIT's inlining decisions, one event per call site it compiles (a few
 * thousand in a JVM's first seconds). A method inlined at a hot call site is called from a hot loop, which is
 * what the samples alone cannot tell ({@link Tally}).</li>
 * </ul>
 * Nothing else is enabled: every other event of the JDK is off, so the recording is small and the run it
 * watches is barely slowed.
 */
public final class FlightSettings {
    static final String SAMPLE_PERIOD = "10 ms";
    static final String WAIT_THRESHOLD = "1 ms";
    /** Deeper than the JDK's default of 64, so that a pool's own frames at the bottom of a stack are kept. */
    static final int STACK_DEPTH = 128;

    private FlightSettings() {
    }

    /** The configuration as the text of a {@code .jfc} file. */
    public static String jfc() {
        StringBuilder xml = new StringBuilder("""
                <?xml version="1.0" encoding="UTF-8"?>
                <!-- dprof suggest: execution samples and the waits of threads (docs/CONFIG.md, "Regions found for you") -->
                <configuration version="2.0" label="dprof suggest" description="dprof suggest" provider="dprof">
                """);
        event(xml, RecordingReader.EXECUTION_SAMPLE, "period", SAMPLE_PERIOD);
        for (String wait : List.of(RecordingReader.THREAD_PARK, RecordingReader.MONITOR_WAIT,
                RecordingReader.SOCKET_READ, RecordingReader.SOCKET_WRITE)) {
            event(xml, wait, "threshold", WAIT_THRESHOLD);
        }
        xml.append("  <event name=\"").append(RecordingReader.COMPILER_INLINING).append("\">\n")
                .append("    <setting name=\"enabled\">true</setting>\n")
                .append("  </event>\n");
        return xml.append("</configuration>\n").toString();
    }

    private static void event(StringBuilder xml, String name, String setting, String value) {
        xml.append("  <event name=\"").append(name).append("\">\n")
                .append("    <setting name=\"enabled\">true</setting>\n")
                .append("    <setting name=\"stackTrace\">true</setting>\n")
                .append("    <setting name=\"").append(setting).append("\">").append(value).append("</setting>\n")
                .append("  </event>\n");
    }

    /**
     * The JVM options that make a launched JVM record with {@code settings} into a file of its own in
     * {@code directory} (the JVM names it after its pid), written when it exits, with the recorder's working
     * chunks in {@code repository}, where a chunk appears as soon as the recording has started; the recorder's
     * start lines are silenced, since they would go to the application's output.
     */
    public static List<String> jvmOptions(Path settings, Path directory, Path repository) {
        return List.of("-Xlog:jfr+startup=error",
                "-XX:FlightRecorderOptions=stackdepth=" + STACK_DEPTH + ",repository=" + repository,
                "-XX:StartFlightRecording=dumponexit=true,filename=" + directory + ",settings=" + settings);
    }
}
