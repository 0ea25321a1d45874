package dev.dprof.agent.bootstrap;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.dprof.testsupport.TestSettings;

/**
 * What a test that needs the JNI library does without it: skips, with the reason, on a build made
 * without a C compiler (the library is then absent by design, and the agent runs on
 * System.nanoTime); but fails under CI ({@code CI=true}) when a compiler is on the PATH, where a
 * missing library is a broken build.
 */
final class NativeRequired {
    private NativeRequired() {
    }

    static void assumeLoaded() {
        if (NativeLibrary.load()) {
            return;
        }
        String why = "needs the JNI library: " + NativeLibrary.message();
        if (TestSettings.ci() && TestSettings.compilerOnPath()) {
            fail(why + " (CI=true and a C compiler is on the PATH, so the build should have made it)");
        }
        assumeTrue(false, why);
    }
}
