package dev.dprof.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code dprof suggest}'s mistakes of use: one line on stderr each, and nothing written. */
class SuggestCommandTest {

    /** Runs {@code dprof ARGS} in this JVM and returns its exit code and stderr. */
    private static String[] run(String... args) {
        InProcess.Result r = InProcess.run(args);
        return new String[] {Integer.toString(r.exit()), r.err().strip()};
    }

    @Test
    void everyMistakeIsOneLine(@TempDir Path tmp) throws Exception {
        String out = tmp.resolve("s.yaml").toString();
        assertEquals("1|dprof: suggest: give one of a command after --, --pid PID or --from FILE (try 'dprof suggest"
                + " --help')", String.join("|", run("suggest", "-o", out)));
        assertEquals("1|dprof: suggest: --pid needs --seconds N (how long to record)",
                String.join("|", run("suggest", "--pid", "1", "-o", out)));
        assertEquals("1|dprof: suggest: --seconds and --top must be positive",
                String.join("|", run("suggest", "--top", "0", "-o", out, "--", "java", "-version")));
        assertEquals("1|dprof: --exclude 'a..b': empty package segment",
                String.join("|", run("suggest", "--exclude", "a..b", "-o", out, "--", "java", "-version")));
        Path missing = tmp.resolve("missing.jfr");
        assertEquals("1|dprof: " + missing + ": no such file", String.join("|", run("suggest", "--from",
                missing.toString(), "-o", out)));
        Path junk = Files.writeString(tmp.resolve("junk.jfr"), "no recording");
        String[] notJfr = run("suggest", "--from", junk.toString(), "-o", out);
        assertEquals("1", notJfr[0]);
        assertEquals(1, notJfr[1].lines().count(), notJfr[1]);
        assertTrue(notJfr[1].startsWith("dprof: " + junk + ": cannot read the flight recording: "), notJfr[1]);
        assertFalse(Files.exists(Path.of(out)), "nothing written");

        Path existing = Files.writeString(tmp.resolve("dprof.yaml"), "version: 1\n");
        assertEquals("1|dprof: " + existing + ": exists; choose another --output or add --force",
                String.join("|", run("suggest", "-o", existing.toString(), "--from", junk.toString())));
        assertEquals("version: 1\n", Files.readString(existing));
    }
}
