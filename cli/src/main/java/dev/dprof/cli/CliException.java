package dev.dprof.cli;

/** An error the user can act on; printed as one line without a stack trace. */
public final class CliException extends Exception {
    private static final long serialVersionUID = 1L;

    public CliException(String message) {
        super(message);
    }
}
