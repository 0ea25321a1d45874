package dev.dprof.it;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.dprof.it.app.BurstApp;
import dev.dprof.it.app.CountingApp;
import dev.dprof.it.app.NestingApp;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The core checks of {@link CountingIT}, {@link NestingIT} and {@link KillIT} on the Temurin 25 JDK,
 * when this machine has it.
 */
class Jdk25IT {
    @BeforeEach
    void requireJdk25() {
        assumeTrue(Files.isExecutable(ForkedJvm.JDK_25.resolve("bin/java")),
                ForkedJvm.JDK_25 + " is not installed: the JDK 25 checks are skipped");
    }

    @Test
    void exactCountsOnJdk25(@TempDir Path tmp) throws Exception {
        CountingIT.runAndCheck(tmp, ForkedJvm.app(CountingApp.class, tmp).javaHome(ForkedJvm.JDK_25));
    }

    @Test
    void killedOnJdk25EveryEventIsRead(@TempDir Path tmp) throws Exception {
        KillIT.killAfterBurstsAndCheck(tmp, ForkedJvm.app(BurstApp.class, tmp).javaHome(ForkedJvm.JDK_25));
    }

    @Test
    void nestingAndExceptionsOnJdk25(@TempDir Path tmp) throws Exception {
        NestingIT.runAndCheck(tmp, ForkedJvm.app(NestingApp.class, tmp).javaHome(ForkedJvm.JDK_25));
    }
}
