package dev.dprof.hostit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.testsupport.Jdks;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The start's compiler directive (the agent's {@code StartCompilerDirective}, docs/CONFIG.md
 * "Start-up"): added before the agent's libraries load, as the {@code timing=true} line says, and
 * gone from the JVM's directive stack when {@code main} begins, on JDK 17 and on JDK 25.
 */
class StartDirectiveIT {
    @TempDir
    Path tmp;

    @ParameterizedTest(name = "JDK {0}")
    @ValueSource(ints = {17, 25})
    void isAddedForTheStartAndGoneAtMain(int feature) throws Exception {
        Path jdk = Jdks.require(feature, feature >= 25);
        Path config = Files.writeString(tmp.resolve("dprof.yaml"), """
                regions:
                  - name: directive.main
                    class: dev.dprof.hostit.DirectiveApp
                    method: main
                """);
        HostJvm.Output with = HostJvm.run(jdk, List.of(HostJvm.agent(config, tmp.resolve("out")) + ",timing=true"),
                DirectiveApp.class, tmp.resolve("with"));

        String timing = with.agentLines().stream().filter(l -> l.startsWith("dprof: start ")).findFirst()
                .orElseThrow(() -> new AssertionError("no timing line\n" + with));
        assertTrue(timing.contains("(compiler directive "), () -> "the directive was not added: " + timing);
        String stack = String.join("\n", with.stdout());
        assertFalse(stack.contains("net/bytebuddy"), () -> "the start's directive is still there at main\n" + with);
    }
}
