package dev.dprof.it;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.dprof.settings.TestSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The JDK with virtual threads that the integration tests run on beside the build's own: the first
 * JDK of feature release 21 or later under {@code /usr/lib/jvm} (by its {@code release} file), or
 * the one {@code -Ddprof.modernJdk=HOME} names. Without one a test is skipped, and fails when
 * {@code CI=true}: CI must not pass by skipping what only a modern JDK can show.
 */
final class Jdks {
    private static final Pattern VERSION = Pattern.compile("JAVA_VERSION=\"(\\d+)");

    private Jdks() {
    }

    /** The JDK 21+ home the tests use; skips (or fails under CI) when there is none. */
    static Path modern() throws IOException {
        Optional<Path> found = find();
        if (found.isEmpty() && TestSettings.ci()) {
            fail("CI=true and no JDK 21 or later under /usr/lib/jvm (or -D" + TestSettings.MODERN_JDK_PROPERTY + "=HOME)");
        }
        assumeTrue(found.isPresent(), "no JDK 21 or later under /usr/lib/jvm: the checks on it are skipped");
        return found.get();
    }

    private static Optional<Path> find() throws IOException {
        Optional<Path> named = TestSettings.modernJdk();
        if (named.isPresent()) {
            return feature(named.get()) >= 21 ? named : Optional.empty();
        }
        Path jvms = Path.of("/usr/lib/jvm");
        if (!Files.isDirectory(jvms)) {
            return Optional.empty();
        }
        try (Stream<Path> homes = Files.list(jvms)) {
            return homes.sorted().filter(h -> feature(h) >= 21).findFirst();
        }
    }

    /** The feature release of the JDK at {@code home}, or 0 when it has no readable {@code release} or no java. */
    private static int feature(Path home) {
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
}
