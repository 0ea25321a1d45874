package dev.dprof.agent.bootstrap;

import java.io.File;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

/**
 * Loads {@code libdprof.so} from this class's own jar (or class directory) so that
 * {@link NativeClock} and {@link NativeRing} work. Never throws: the outcome is one line,
 * {@link #message()}, that says what was loaded or why the agent falls back to System.nanoTime.
 *
 * <p>The resource is read with {@code Class.getResourceAsStream}, which also works when this class
 * was loaded by the bootstrap class loader from a jar appended with {@code -Xbootclasspath/a}, and
 * else from the application loader, which has the agent jar (the agent defines this class in the
 * bootstrap loader with no jar behind it). The library is copied to a fresh temp file (owner-only, unique
 * name; directory overridable by the system property {@code dprof.native.tmpdir} for hosts whose
 * /tmp is mounted noexec) and deleted right after {@code System.load}: the mapping stays valid on
 * Linux, and no file is left behind even if the JVM is killed.
 */
public final class NativeLibrary {
    /** Where the build puts the library inside the jar. */
    static final String RESOURCE = "/dev/dprof/agent/bootstrap/native/linux-x86_64/libdprof.so";

    private static boolean attempted;
    private static volatile boolean loaded;
    private static volatile String message = "dprof: native clock not loaded yet";

    private NativeLibrary() {
    }

    /**
     * Loads the library once per class loader; later calls return the first outcome.
     *
     * @return true if the native methods are usable
     */
    public static synchronized boolean load() {
        if (attempted) {
            return loaded;
        }
        attempted = true;
        try {
            message = tryLoad();
            loaded = true;
        } catch (Throwable t) {
            message = "dprof: native clock unavailable (" + describe(t) + "); falling back to System.nanoTime";
        }
        return loaded;
    }

    /** Whether {@link #load()} succeeded. */
    public static boolean isLoaded() {
        return loaded;
    }

    /** One line describing the outcome of {@link #load()}, fit for the agent's log. */
    public static String message() {
        return message;
    }

    private static String tryLoad() throws Exception {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        if (!os.startsWith("linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
            throw new UnsupportedOperationException("no native library for " + os + "/" + arch);
        }
        Path file;
        try (InputStream in = openResource()) {
            if (in == null) {
                throw new IllegalStateException("resource " + RESOURCE + " not found next to " + NativeLibrary.class.getName());
            }
            String dir = System.getProperty("dprof.native.tmpdir");
            file = dir == null || dir.isEmpty()
                    ? Files.createTempFile("dprof-", ".so")
                    : Files.createTempFile(Path.of(dir), "dprof-", ".so");
            Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
        }
        try {
            System.load(file.toAbsolutePath().toString());
        } finally {
            deleteQuietly(file.toFile());
        }
        // Linking is lazy; call something so a mismatched library fails here, not in a probe.
        NativeClock.rdtsc();
        boolean rdtscp = NativeClock.hasRdtscp();
        boolean invariant = NativeClock.invariantTsc();
        return "dprof: native clock loaded (rdtsc" + (rdtscp ? ", rdtscp" : ", no rdtscp")
                + (invariant ? ", invariant TSC" : ", TSC NOT invariant") + ")";
    }

    /**
     * The library beside this class, else from the application loader: the agent defines this class
     * in the bootstrap loader without a jar there (agent/core's {@code BootstrapJar}), while the JVM
     * puts the agent jar on the application's class path.
     */
    private static InputStream openResource() {
        InputStream in = NativeLibrary.class.getResourceAsStream(RESOURCE);
        return in != null ? in : ClassLoader.getSystemResourceAsStream(RESOURCE.substring(1));
    }

    private static void deleteQuietly(File f) {
        if (!f.delete()) {
            f.deleteOnExit();
        }
    }

    private static String describe(Throwable t) {
        String m = t.getMessage();
        String line = t.getClass().getSimpleName() + (m == null ? "" : ": " + m);
        return line.replace('\n', ' ').replace('\r', ' ');
    }
}
