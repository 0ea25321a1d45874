package dev.dprof.consolidator.read;

import java.nio.file.Path;
import java.util.Optional;

/** A run directory cannot be read; the message names the directory and the problem. */
public final class ReadException extends Exception {
    private static final long serialVersionUID = 1L;

    /** The file whose content stopped the reading, when one did (not serialised: a path is not). */
    private final transient Path file;

    public ReadException(String message) {
        this(message, null);
    }

    /** A problem with {@code file}'s content; the message names it, or the directory holding it. */
    public ReadException(String message, Path file) {
        super(message);
        this.file = file;
    }

    /** The file whose content stopped the reading; empty when the problem is not one file's. */
    public Optional<Path> file() {
        return Optional.ofNullable(file);
    }
}
