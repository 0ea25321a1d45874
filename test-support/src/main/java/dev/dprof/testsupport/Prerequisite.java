package dev.dprof.testsupport;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Something a test needs from the machine (a JDK, a browser): without it the test is skipped with
 * the reason, and fails with that same reason when {@code CI=true}, because CI must not pass by
 * skipping what only the missing piece can show.
 */
public final class Prerequisite {
    private Prerequisite() {
    }

    /** Returns when {@code present}; otherwise fails under CI and skips elsewhere, saying {@code why}. */
    public static void require(boolean present, String why) {
        if (present) {
            return;
        }
        if (TestSettings.ci()) {
            fail("CI=true and " + why);
        }
        assumeTrue(false, why);
    }
}
