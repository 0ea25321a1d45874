package dev.dprof.consolidator.read;

/** A run directory cannot be read; the message names the directory and the problem. */
public final class ReadException extends Exception {
    private static final long serialVersionUID = 1L;

    public ReadException(String message) {
        super(message);
    }
}
