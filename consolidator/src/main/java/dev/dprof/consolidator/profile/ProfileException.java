package dev.dprof.consolidator.profile;

/** A profile cannot be read or written; the message names the file and the problem. */
public final class ProfileException extends Exception {
    private static final long serialVersionUID = 1L;

    public ProfileException(String message) {
        super(message);
    }
}
