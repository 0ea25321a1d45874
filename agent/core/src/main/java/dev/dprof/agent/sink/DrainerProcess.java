package dev.dprof.agent.sink;

import dev.dprof.settings.DprofSettings;
import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Starts the drainer process ({@link ProcessDrainer}) of a host (docs/DESIGN.md, "The drainer in its
 * own process"): the host's own {@code java}, the agent jar as its class path and its root entry
 * point, which loads the agent's isolated classes as {@code premain} does; the JVM flags Chronicle
 * needs ({@link DprofSettings#chronicleJvmFlags}), a small heap, C1 only (the drain path is
 * simple, and C2's compilations would only compete with the host for its cores), and its output
 * appended to {@code drainer.log} in the run's directory.
 *
 * <p>The host's environment is passed on without {@code JAVA_TOOL_OPTIONS}, {@code JDK_JAVA_OPTIONS}
 * and {@code _JAVA_OPTIONS}: a {@code -javaagent} there would start an agent in the drainer, which
 * would start a drainer of its own.
 */
public final class DrainerProcess {
    /** The agent jar's root entry point; its {@code main} hands over to {@link ProcessDrainer#main}. */
    static final String ENTRY = "dev.dprof.agent.jar.AgentMain";
    /** Where the drainer process's output goes, in the run's directory. */
    public static final String LOG = "drainer.log";
    static final List<String> FLAGS = List.of("-Xmx48m", "-Xss512k", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
            "-XX:CICompilerCount=1", "-Xshare:auto");
    private static final List<String> AGENT_OPTIONS = List.of("JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS");

    private DrainerProcess() {
    }

    /**
     * Starts the drainer process of the run in {@code dir}.
     *
     * @throws IOException saying why it cannot be started (no agent jar, no {@code java}, a failed start)
     */
    public static Process start(Path dir, long hostPid, long reserveBytes) throws IOException {
        Path jar = agentJar();
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        if (!Files.isExecutable(java)) {
            throw new IOException("no java at " + java);
        }
        List<String> command = new ArrayList<>();
        command.add(java.toString());
        command.addAll(DprofSettings.chronicleJvmFlags());
        command.addAll(FLAGS);
        if (Runtime.version().feature() >= 24) {
            // Chronicle's sun.misc.Unsafe and JNA's native access: allowed, so that the JDK warns of neither.
            command.add("--sun-misc-unsafe-memory-access=allow");
            command.add("--enable-native-access=ALL-UNNAMED");
        }
        // Chronicle's INFO banner is noise in the log; its warnings are not.
        command.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
        if (DprofSettings.debug()) {
            command.add("-D" + DprofSettings.DEBUG_PROPERTY + "=true"); // its cost, in its log at its end
        }
        command.add("-cp");
        command.add(jar.toString());
        command.add(ENTRY);
        command.add(dir.toString());
        command.add(Long.toString(hostPid));
        command.add(Long.toString(reserveBytes));
        ProcessBuilder builder = new ProcessBuilder(command);
        Map<String, String> env = builder.environment();
        AGENT_OPTIONS.forEach(env::remove);
        File log = dir.resolve(LOG).toFile();
        builder.redirectOutput(ProcessBuilder.Redirect.appendTo(log));
        builder.redirectError(ProcessBuilder.Redirect.appendTo(log));
        builder.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        return builder.start();
    }

    /** The agent jar this class was loaded from; an agent run from a class directory (tests) has none. */
    private static Path agentJar() throws IOException {
        try {
            Path p = Path.of(DrainerProcess.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            if (!Files.isRegularFile(p)) {
                throw new IOException("the agent runs from " + p + ", not from its jar");
            }
            return p;
        } catch (URISyntaxException | SecurityException | NullPointerException e) {
            throw new IOException("the agent's jar cannot be found (" + e + ")");
        }
    }
}
