package dev.dprof.cli;

import java.io.PrintStream;
import java.util.List;

/**
 * What the causal analyses (what-if, critical path) say about processes whose clock has no rate
 * bound (docs/BOUNDS.md, "No bound"): a replay that cannot be bounded says why in one line in
 * place of its figures, and one made without such processes (their events were left out at
 * consolidation) names them. The rest of a command's output is unaffected.
 */
final class ReplayNote {
    private ReplayNote() {
    }

    /** Prints {@code figures: no bound (why)} and returns true when {@code noBound} is set. */
    static boolean printNoBound(String figures, String noBound, PrintStream out) {
        if (noBound == null) {
            return false;
        }
        out.println(figures + ": " + NoBound.TEXT + " (" + noBound + ")");
        return true;
    }

    /** One note line per process the replay ran without. */
    static void printNotReplayed(List<String> notReplayed, PrintStream out) {
        notReplayed.forEach(p -> out.println("note: left out of the replay: " + p));
    }
}
