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
}
