package dev.dprof.cli;

import dev.dprof.consolidator.analysis.causal.Incomplete;
import java.io.PrintStream;

/**
 * How the commands show that the causal picture is incomplete ({@link Incomplete}) in text: one
 * paragraph and the YAML that would close the gap. In JSON it is {@code incomplete}, the record's
 * own form (null when the picture is complete), in each result's form.
 */
final class IncompleteNote {
    private IncompleteNote() {
    }

    /** Prints the note and its YAML after an analysis's table; nothing when the picture is complete. */
    static void print(Incomplete incomplete, PrintStream out) {
        if (incomplete == null) {
            return;
        }
        out.println();
        out.println("note: " + incomplete.note());
        incomplete.suggestion().lines().forEach(line -> out.println("    " + line));
    }
}
