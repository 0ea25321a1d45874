package dev.dprof.format;

/** A record on disk is truncated, corrupt, or of a version this build does not know. */
public final class FormatException extends Exception {
    private static final long serialVersionUID = 1L;

    public FormatException(String message) {
        super(message);
    }
}
