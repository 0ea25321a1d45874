package dev.dprof.consolidator.consolidate;

/** Consolidation cannot proceed; the message names the input and the problem. */
public final class ConsolidationException extends Exception {
    private static final long serialVersionUID = 1L;

    public ConsolidationException(String message) {
        super(message);
    }
}
