package dev.dprof.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The JDKs of this machine: every home under {@code /usr/lib/jvm} with a {@code bin/java}, known by
 * the feature release its {@code release} file states, never by a fixed path. A test that needs
 * one asks {@link #modern} or {@link #require}, which skip without it and fail under
 * {@code CI=true} ({@link Prerequisite}); {@link #find} only looks.
 */
public final class Jdks {
    /** The feature release from which a JDK has virtual threads and counts as modern. */
    public static final int MODERN = 21;
    private static final Path JVMS = Path.of("/usr/lib/jvm");
    private static final Pattern VERSION = Pattern.compile("JAVA_VERSION=\"(?:1\\.)?(\\d+)");

    private Jdks() {
    }

    /**
     * The JDK 21+ the tests run on beside the build's own: the one {@code -Ddprof.modernJdk=HOME}
     * names, else the first under {@code /usr/lib/jvm} by name.
     */
    public static Path modern() {
        Optional<Path> named = TestSettings.modernJdk();
        Optional<Path> found = named.isPresent() ? named.filter(h -> feature(h) >= MODERN) : find(MODERN, true);
        Prerequisite.require(found.isPresent(), "no JDK " + MODERN + " or later under " + JVMS + " (or -D"
                + TestSettings.MODERN_JDK_PROPERTY + "=HOME)" + named.map(n -> ": " + n + " is not one").orElse(""));
        return found.get();
    }

    /**
     * The JDK of feature release {@code feature} (or of a later one when {@code orLater}): the one
     * {@code -Ddprof.jdk<feature>=HOME} names, else the first under {@code /usr/lib/jvm} by name.
     */
    public static Path require(int feature, boolean orLater) {
        Optional<Path> named = TestSettings.jdkHome(feature);
        Optional<Path> found = named.isPresent()
                ? named.filter(h -> matches(feature(h), feature, orLater))
                : find(feature, orLater);
        Prerequisite.require(found.isPresent(), "no JDK " + feature + (orLater ? " or later" : "") + " under " + JVMS
                + " (or -D" + TestSettings.JDK_HOME_PROPERTY_PREFIX + feature + "=HOME)"
                + named.map(n -> ": " + n + " is not one").orElse(""));
        return found.get();
    }

    /** The first JDK under {@code /usr/lib/jvm} (by name) of release {@code feature}, or later when {@code orLater}. */
    public static Optional<Path> find(int feature, boolean orLater) {
        return installed().stream().filter(h -> matches(feature(h), feature, orLater)).findFirst();
    }

    /** Every JDK home under {@code /usr/lib/jvm}, sorted by name; empty where there is no such folder. */
    public static List<Path> installed() {
        return installedUnder(JVMS);
    }

    static List<Path> installedUnder(Path jvms) {
        if (!Files.isDirectory(jvms)) {
            return List.of();
        }
        try (Stream<Path> homes = Files.list(jvms)) {
            return homes.sorted().filter(h -> feature(h) > 0).toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + jvms, e);
        }
    }

    /**
     * The feature release of the JDK at {@code home} from its {@code release} file
     * ({@code JAVA_VERSION="25.0.3"} is 25, {@code "1.8.0_402"} is 8), or 0 when it has no readable one or no {@code bin/java}.
     */
    public static int feature(Path home) {
        Path release = home.resolve("release");
        if (!Files.isRegularFile(release) || !Files.isExecutable(home.resolve("bin/java"))) {
            return 0;
        }
        try {
            Matcher m = VERSION.matcher(Files.readString(release));
            return m.find() ? Integer.parseInt(m.group(1)) : 0;
        } catch (IOException | NumberFormatException e) {
            return 0;
        }
    }

    private static boolean matches(int found, int feature, boolean orLater) {
        return orLater ? found >= feature : found == feature;
    }
}
