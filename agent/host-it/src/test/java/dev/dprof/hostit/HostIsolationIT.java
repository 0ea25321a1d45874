package dev.dprof.hostit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.testsupport.Jdks;
import dev.dprof.settings.DprofSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The agent cannot clash with its host: {@link HostApp} carries other versions of Jackson,
 * JNA, protobuf, picocli, ByteBuddy and Chronicle than dprof does, and runs with the agent exactly as
 * without it — the same output, every library served from the application's own jar — while its
 * region is woven and recorded. On JDK 17 and on JDK 25.
 *
 * <p>Both runs get the flags the application's own Chronicle needs ({@link #HOST_FLAGS}); on 25 also
 * {@code --sun-misc-unsafe-memory-access=allow} and {@code --enable-native-access=ALL-UNNAMED}, as an
 * application using Chronicle and JNA there would: the JDK's warnings for them are one per JVM (per
 * unnamed modules), and the agent, whose code triggers them first, sets them as given (QuietIT tests
 * what the host sees without such flags).
 */
class HostIsolationIT {
    /**
     * What the application's Chronicle needs on 17 and 25 (its own business, with or without the
     * agent): the same flags as dprof's own Chronicle, from their one source.
     */
    static final List<String> HOST_FLAGS = DprofSettings.chronicleJvmFlags();
    /** The jar each library must come from: the application's version, not dprof's. */
    private static final Map<String, String> JARS = Map.of("jackson", "jackson-databind-2.17.2.jar",
            "protobuf", "protobuf-java-3.25.5.jar", "picocli", "picocli-4.6.2.jar",
            "bytebuddy", "byte-buddy-1.14.12.jar", "jna", "jna-5.13.0.jar", "chronicle", "chronicle-queue-2026.2.jar");

    @TempDir
    Path tmp;

    @ParameterizedTest(name = "JDK {0}")
    @ValueSource(ints = {17, 25})
    void theHostRunsUnchangedAndProfiled(int feature) throws Exception {
        Path jdk = Jdks.require(feature, feature >= 25);
        List<String> flags = new ArrayList<>(HOST_FLAGS);
        if (feature >= 24) {
            flags.add("--sun-misc-unsafe-memory-access=allow");
            flags.add("--enable-native-access=ALL-UNNAMED");
        }
        HostJvm.Output without = HostJvm.run(jdk, flags, HostApp.class, tmp.resolve("without"), "queue");
        Path config = Files.writeString(tmp.resolve("dprof.yaml"), """
                regions:
                  - name: host.work
                    class: dev.dprof.hostit.HostApp
                    method: work
                """);
        Path out = tmp.resolve("out");
        List<String> withAgent = new ArrayList<>(flags);
        withAgent.add(0, HostJvm.agent(config, out));
        HostJvm.Output with = HostJvm.run(jdk, withAgent, HostApp.class, tmp.resolve("with"), "queue");

        for (Map.Entry<String, String> library : JARS.entrySet()) {
            assertTrue(with.stdout().stream().anyMatch(l -> l.startsWith(library.getKey() + " " + library.getValue() + " ")),
                    () -> library.getKey() + " not served from " + library.getValue() + "\n" + with);
        }
        assertEquals(without.stdout(), with.stdout(), () -> "stdout differs with the agent\n" + without + "\n" + with);
        assertEquals(without.stderr(), with.stderrWithoutAgent(),
                () -> "stderr differs with the agent beyond its own lines\n" + without + "\n" + with);
        assertTrue(with.agentLines().contains("dprof: woven 1 method in 1 class for 1 of 1 configured regions"),
                () -> "the region was not woven\n" + with);
        assertTrue(hasQueueFile(out), () -> "no event queue under " + out + "\n" + with);
    }

    private static boolean hasQueueFile(Path out) throws IOException {
        try (Stream<Path> files = Files.walk(out)) {
            return files.anyMatch(p -> p.getFileName().toString().endsWith(".cq4"));
        }
    }
}
