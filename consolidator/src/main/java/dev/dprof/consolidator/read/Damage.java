package dev.dprof.consolidator.read;

import java.util.List;

/**
 * A problem line that reports damaged input (a file that could not be read whole), told apart
 * from the other notes of a run (a process that was killed, a calibration that contradicts its
 * assumption) so that {@code --strict} can make damage an error and every command lists it the
 * same way. The mark is the line's prefix, kept in {@code profile.json}'s problems as written.
 */
public final class Damage {
    /** The prefix of a damage line. */
    public static final String PREFIX = "damaged input: ";

    private Damage() {
    }

    /** {@code problem} marked as damage (once). */
    public static String line(String problem) {
        return problem.startsWith(PREFIX) ? problem : PREFIX + problem;
    }

    /** Whether {@code problem} reports damage. */
    public static boolean is(String problem) {
        return problem.startsWith(PREFIX);
    }

    /** How many of {@code problems} report damage. */
    public static long count(List<String> problems) {
        return problems.stream().filter(Damage::is).count();
    }

    /**
     * A library's failure as words for the user: its message (the innermost that has one), never a
     * class name or a stack trace; a memory-access fault is said as such.
     */
    public static String describe(Throwable e) {
        if (e instanceof InternalError) {
            return "a memory-access fault reading a mapped file (damaged or truncated)";
        }
        Throwable t = e;
        String message = null;
        while (t != null) {
            if (t.getMessage() != null && !t.getMessage().isBlank()) {
                message = t.getMessage();
            }
            t = t.getCause() == t ? null : t.getCause();
        }
        if (message == null) {
            return "unreadable data";
        }
        // Chronicle's messages often hold a wrapped exception's name: keep the words after it.
        message = message.replaceAll("(?:[a-z][a-z0-9_]*\\.)+[A-Z][A-Za-z0-9_$]*(?:Exception|Error)(?::\\s*)?", "").strip();
        return message.isEmpty() ? "unreadable data" : message;
    }
}
