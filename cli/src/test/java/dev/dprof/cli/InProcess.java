package dev.dprof.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * Runs a {@code dprof} command line in the test's JVM and keeps what it printed: the tests that check
 * many commands' exit codes and lines (damaged inputs, unbounded figures, mistakes of use) would
 * otherwise start a JVM per case.
 */
public final class InProcess {
    private InProcess() {
    }

    /** What a command printed and its exit code. */
    public record Result(int exit, String out, String err) {
        @Override
        public String toString() {
            return "exit " + exit + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    /** Runs {@code dprof ARGS}; synchronized because it swaps the JVM's stdout and stderr. */
    public static synchronized Result run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream stdout = System.out;
        PrintStream stderr = System.err;
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        int exit;
        try {
            exit = Main.run(args);
        } finally {
            System.setOut(stdout);
            System.setErr(stderr);
        }
        return new Result(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
}
