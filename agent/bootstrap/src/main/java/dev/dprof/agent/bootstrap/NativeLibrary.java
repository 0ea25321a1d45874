package dev.dprof.agent.bootstrap;

import java.io.File;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

/**
 * Loads dprof's JNI library from this class's own jar (or class directory) so that
 * {@link NativeClock} and {@link NativeRing} work. Never throws: the outcome is one line,
 * {@link #message()}, that says what was loaded or why the agent falls back to System.nanoTime.
 *
 * <p>The library is picked by the running OS and architecture ({@link #resourceFor}): the build
 * puts {@code native/linux-x86_64/libdprof.so}, {@code native/linux-aarch64/libdprof.so} (when the
 * cross compiler is installed), or on a Mac {@code native/darwin-<arch>/libdprof.dylib} beside
 * this class. A platform without one, or a build without a C compiler, runs on System.nanoTime.
 *
 * <p>The resource is read with {@code Class.getResourceAsStream}, which also works when this class
 * was loaded by the bootstrap class loader from a jar appended with {@code -Xbootclasspath/a}, or
 * else from the application loader, which has the agent jar (the agent defines this class in the
 * bootstrap loader with no jar behind it). The library is copied to a fresh temp file (owner-only, unique
 * name; directory overridable by {@link BootstrapSettings#NATIVE_TMPDIR_PROPERTY} for hosts whose
 * /tmp is mounted noexec) and deleted right after {@code System.load}: the mapping stays valid on
 * Linux, and no file is left behind even if the JVM is killed.
 */
public final class NativeLibrary {
    /** Where the build puts the libraries inside the jar: one folder per {@code <os>-<arch>}. */
    static final String RESOURCE_DIR = "/dev/dprof/agent/bootstrap/native/";

    private static boolean attempted;
    private static volatile boolean loaded;
    /** No library for this platform in the jar: the declared fallback, not a failure. */
    private static volatile boolean absent;
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

    /**
     * Whether {@link #load()} found no library for this platform (a build without a C compiler, or a
     * platform none is built for): System.nanoTime is then the declared clock, which the run's header
     * records, rather than a failure to report.
     */
    public static boolean absent() {
        return absent;
    }

    /** One line describing the outcome of {@link #load()}, fit for the agent's log. */
    public static String message() {
        return message;
    }

    /**
     * The library's resource path for an {@code os.name} and {@code os.arch}, or null where no
     * library is built (any OS but Linux and macOS, any architecture but x86-64 and aarch64).
     */
    public static String resourceFor(String osName, String osArch) {
        String os = osName.toLowerCase(Locale.ROOT);
        String arch = switch (osArch.toLowerCase(Locale.ROOT)) {
            case "amd64", "x86_64" -> "x86_64";
            case "aarch64", "arm64" -> "aarch64";
            default -> null;
        };
        if (arch == null) {
            return null;
        }
        if (os.startsWith("linux")) {
            return RESOURCE_DIR + "linux-" + arch + "/libdprof.so";
        }
        if (os.startsWith("mac") || os.startsWith("darwin")) {
            return RESOURCE_DIR + "darwin-" + arch + "/libdprof.dylib";
        }
        return null;
    }

    private static String tryLoad() throws Exception {
        String os = System.getProperty("os.name", "");
        String arch = System.getProperty("os.arch", "");
        String resource = resourceFor(os, arch);
        if (resource == null) {
            absent = true;
            throw new UnsupportedOperationException("no native library for " + os + "/" + arch);
        }
        Path file;
        try (InputStream in = openResource(resource)) {
            if (in == null) {
                absent = true;
                throw new IllegalStateException("resource " + resource + " not found next to "
                        + NativeLibrary.class.getName() + " (built without a C compiler?)");
            }
            java.util.Optional<String> dir = BootstrapSettings.nativeTmpdir();
            file = dir.isEmpty()
                    ? Files.createTempFile("dprof-", ".so")
                    : Files.createTempFile(Path.of(dir.get()), "dprof-", ".so"); // dlopen ignores the suffix
            Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
        }
        try {
            System.load(file.toAbsolutePath().toString());
        } finally {
            deleteQuietly(file.toFile());
        }
        // Linking is lazy; call something so a mismatched library fails here, not in a probe.
        NativeClock.rdtsc();
        String counter = NativeClock.counterName();
        boolean invariant = NativeClock.invariantTsc();
        if (!counter.equals("rdtsc")) {
            return "dprof: native clock loaded (" + counter + " at " + NativeClock.counterFrequency() + " Hz"
                    + (invariant ? "" : ", counter NOT invariant") + ")";
        }
        boolean rdtscp = NativeClock.hasRdtscp();
        return "dprof: native clock loaded (rdtsc" + (rdtscp ? ", rdtscp" : ", no rdtscp")
                + (invariant ? ", invariant TSC" : ", TSC NOT invariant") + ")";
    }

    /**
     * The library beside this class, else from the application loader: the agent defines this class
     * in the bootstrap loader without a jar there (agent/core's {@code BootstrapJar}), while the JVM
     * puts the agent jar on the application's class path.
     */
    private static InputStream openResource(String resource) {
        InputStream in = NativeLibrary.class.getResourceAsStream(resource);
        return in != null ? in : ClassLoader.getSystemResourceAsStream(resource.substring(1));
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
