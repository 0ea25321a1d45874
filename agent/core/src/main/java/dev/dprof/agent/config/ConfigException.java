package dev.dprof.agent.config;

/**
 * A configuration file that cannot be used. {@link #getMessage()} is one line that names the file and, where the
 * problem has a place, the line: {@code dprof.yaml:12: regions[1].kind: unknown kind 'sned' (expected one of plain,
 * send, receive, barrier, collective, progress, handoff)}. The agent prints it and runs the application unprofiled.
 */
public final class ConfigException extends Exception {

    private static final long serialVersionUID = 1L;

    /** @param message the one-line message; any line breaks in it are turned into spaces */
    public ConfigException(String message) {
        super(oneLine(message));
    }

    /** @param message the one-line message; any line breaks in it are turned into spaces */
    public ConfigException(String message, Throwable cause) {
        super(oneLine(message), cause);
    }

    private static String oneLine(String message) {
        return message == null ? null : message.replaceAll("\\s*[\\r\\n]+\\s*", " ").strip();
    }
}
