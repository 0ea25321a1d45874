package dev.dprof.agent.bootstrap;

import java.util.Optional;

/**
 * The settings the bootstrap classes read themselves, listed with the others in
 * {@code docs/CONFIG.md}, "System properties and environment variables". Every other setting
 * belongs to {@code dev.dprof.settings.DprofSettings} (module {@code format}); this class exists
 * because the agent defines the bootstrap classes in the boot loader, which never sees a class of
 * {@code format}, so nothing here may depend on it at run time (BootClassPathTest checks it).
 * Read when asked, never cached: the native library is loaded once per loader anyway.
 */
public final class BootstrapSettings {
    /** The directory the JNI library is copied into before it is loaded (default {@code java.io.tmpdir}). */
    public static final String NATIVE_TMPDIR_PROPERTY = "dprof.native.tmpdir";

    private BootstrapSettings() {
    }

    /** {@link #NATIVE_TMPDIR_PROPERTY}, when set and not empty. */
    public static Optional<String> nativeTmpdir() {
        String dir = System.getProperty(NATIVE_TMPDIR_PROPERTY);
        return dir == null || dir.isEmpty() ? Optional.empty() : Optional.of(dir);
    }
}
