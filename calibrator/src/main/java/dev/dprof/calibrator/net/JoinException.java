package dev.dprof.calibrator.net;

/**
 * A node cannot calibrate against its parent; the message is one line fit for the user. A
 * {@linkplain #retryable() retryable} failure (no answer yet) may go away when the parent starts;
 * the others (unresolvable host, same clock domain, unwritable directory) will not.
 */
public final class JoinException extends Exception {
    private static final long serialVersionUID = 1L;

    private final boolean retryable;

    public JoinException(String message, boolean retryable) {
        super(message);
        this.retryable = retryable;
    }

    public boolean retryable() {
        return retryable;
    }
}
