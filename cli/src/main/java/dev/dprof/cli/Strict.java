package dev.dprof.cli;

import dev.dprof.consolidator.read.Damage;
import java.util.List;

/**
 * Damaged input, the same for every reading command: each damaged file is listed (by the
 * consolidator's problem lines, {@link Damage}), what is intact is used, and {@code --strict}
 * makes damage an error (exit 1) for those who want all or nothing.
 */
final class Strict {
    /** The option's help text, one wording for every command. */
    static final String HELP = "damaged input (a corrupt or unreadable queue, ring or record) is an error: exit 1";

    private Strict() {
    }

    /** Prints the damage lines of a profile read by {@code analyze} or {@code report} (consolidate printed them too). */
    static void list(List<String> problems) {
        problems.stream().filter(Damage::is).forEach(p -> System.err.println("dprof: " + p));
    }

    /** Throws if {@code strict} and any of {@code problems} reports damage. */
    static void check(boolean strict, List<String> problems) throws CliException {
        long damaged = Damage.count(problems);
        if (strict && damaged > 0) {
            throw new CliException("--strict: " + damaged + (damaged == 1 ? " damaged input" : " damaged inputs")
                    + " (listed above)");
        }
    }
}
