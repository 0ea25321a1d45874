package dev.dprof.testsupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

/** A missing prerequisite skips the test with its reason, and fails it with that reason under {@code CI=true}. */
class PrerequisiteTest {
    @Test
    void presentIsSilentMissingSkipsOrFailsUnderCi() {
        Prerequisite.require(true, "never said");
        String why = "no frobnicator: install Debian's frobnicator package";
        if (TestSettings.ci()) {
            assertEquals("CI=true and " + why,
                    assertThrows(AssertionFailedError.class, () -> Prerequisite.require(false, why)).getMessage());
        } else {
            assertEquals("Assumption failed: " + why,
                    assertThrows(TestAbortedException.class, () -> Prerequisite.require(false, why)).getMessage());
        }
    }
}
