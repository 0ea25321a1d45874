package dev.dprof.it;

import dev.dprof.it.app.BurstApp;
import dev.dprof.it.app.CountingApp;
import dev.dprof.it.app.NestingApp;
import dev.dprof.testsupport.Jdks;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The core checks of {@link CountingIT}, {@link NestingIT} and {@link KillIT} on a JDK 21 or later
 * ({@link Jdks#modern}: Temurin 25 on this project's machines).
 */
class Jdk25IT {
    private Path jdk;

    @BeforeEach
    void requireModernJdk() throws IOException {
        jdk = Jdks.modern();
    }

    @Test
    void exactCountsOnJdk25(@TempDir Path tmp) throws Exception {
        CountingIT.runAndCheck(tmp, ForkedJvm.app(CountingApp.class, tmp).javaHome(jdk));
    }

    @Test
    void killedOnJdk25EveryEventIsRead(@TempDir Path tmp) throws Exception {
        KillIT.killAfterBurstsAndCheck(tmp, ForkedJvm.app(BurstApp.class, tmp).javaHome(jdk));
    }

    @Test
    void nestingAndExceptionsOnJdk25(@TempDir Path tmp) throws Exception {
        NestingIT.runAndCheck(tmp, ForkedJvm.app(NestingApp.class, tmp).javaHome(jdk));
    }
}
