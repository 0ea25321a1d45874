package dev.dprof.hostit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.testsupport.Jdks;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Quiet on the host: with class-data sharing on and no JVM flag but {@code -javaagent},
 * a program's stdout is the same with the agent as without, and its stderr differs only by the
 * agent's start line and its end-of-run lines (what was woven, and each region that matched
 * nothing) — no "Sharing is only supported for boot loader classes", no JEP 472 native-access
 * warning for the native clock, no JEP 498 {@code sun.misc.Unsafe} warning for Chronicle. On JDK
 * 17 and on JDK 25.
 */
class QuietIT {
    @TempDir
    Path tmp;

    @ParameterizedTest(name = "JDK {0}")
    @ValueSource(ints = {17, 25})
    void onlyTheAgentsOwnLinesAreAdded(int feature) throws Exception {
        Path jdk = Jdks.require(feature, feature >= 25);
        List<String> cds = List.of("-Xshare:auto");
        HostJvm.Output without = HostJvm.run(jdk, cds, QuietApp.class, tmp.resolve("without"));
        Path config = Files.writeString(tmp.resolve("dprof.yaml"), """
                regions:
                  - name: quiet.greet
                    class: dev.dprof.hostit.QuietApp
                    method: greet
                  - name: quiet.typo
                    class: dev.dprof.hostit.QuietApp
                    method: greeet
                """);
        HostJvm.Output with = HostJvm.run(jdk, List.of("-Xshare:auto", HostJvm.agent(config, tmp.resolve("out"))),
                QuietApp.class, tmp.resolve("with"));

        assertEquals(without.stdout(), with.stdout(), () -> "the agent wrote to stdout\n" + with);
        assertEquals(without.stderr(), with.stderrWithoutAgent(), () -> "stderr differs beyond the agent's lines\n" + with);
        List<String> agent = with.agentLines();
        assertEquals(3, agent.size(), () -> "expected the start line, the woven line and one unmatched region\n" + with);
        assertTrue(agent.get(0).startsWith("dprof: recording 2 configured regions to "), agent.get(0));
        assertEquals("dprof: woven 1 method in 1 class for 1 of 2 configured regions", agent.get(1));
        assertTrue(agent.get(2).startsWith("dprof: region 'quiet.typo' "), agent.get(2));
    }
}
