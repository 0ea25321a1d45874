package dev.dprof.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.dprof.consolidator.analysis.causal.Incomplete;
import java.io.PrintStream;

/**
 * How the commands show that the causal picture is incomplete ({@link Incomplete}): one paragraph
 * and the YAML that would close the gap, and the same in JSON as {@code incomplete} (null when
 * the picture is complete).
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

    /** {@code incomplete: {outsideShareLo, outsideShareHi, reasons, threads, suggestion, note}}, or null. */
    static void json(ObjectNode root, Incomplete incomplete) {
        root.set("incomplete", Json.MAPPER.valueToTree(incomplete));
    }
}
