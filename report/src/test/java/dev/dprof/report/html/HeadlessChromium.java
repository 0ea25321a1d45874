package dev.dprof.report.html;

import dev.dprof.testsupport.Prerequisite;
import dev.dprof.testsupport.TestSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Headless Chromium for the tests, found on the {@code PATH} or at {@code /usr/bin/chromium}
 * (Debian's {@code chromium} package, which {@code .ci/run} installs); without it a test is
 * skipped, and fails under {@code CI=true} ({@link Prerequisite}). Each run starts from a fresh
 * profile in the test's own directory and with everything that would reach the network off: the
 * machines it runs on have none.
 */
final class HeadlessChromium {
    private static final String[] NAMES = {"chromium", "chromium-browser", "google-chrome"};
    private static final Path DEBIAN = Path.of("/usr/bin/chromium");
    private static final List<String> FLAGS = List.of("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
            "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--disable-extensions");

    private final Path executable;
    private final Path scratch;

    private HeadlessChromium(Path executable, Path scratch) {
        this.executable = executable;
        this.scratch = scratch;
    }

    /** The browser, whose profiles go under {@code scratch} (the test's temporary directory). */
    static HeadlessChromium locate(Path scratch) {
        Optional<Path> found = TestSettings.onPath(NAMES).or(() -> Optional.of(DEBIAN).filter(Files::isExecutable));
        Prerequisite.require(found.isPresent(), "no headless Chromium on the PATH or at " + DEBIAN
                + ": install Debian's chromium and chromium-driver packages (apt-get install chromium chromium-driver)");
        return new HeadlessChromium(found.get(), scratch);
    }

    /** The page's DOM after its scripts ran. */
    String dumpDom(Path page) throws IOException, InterruptedException {
        return run(List.of("--dump-dom", page.toUri().toString()));
    }

    /** A screenshot of the page, {@code width × height} CSS pixels. */
    void screenshot(Path page, Path png, int width, int height) throws IOException, InterruptedException {
        run(List.of("--hide-scrollbars", "--window-size=" + width + "," + height, "--screenshot=" + png.toAbsolutePath(),
                page.toUri().toString()));
    }

    private String run(List<String> args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(executable.toString()));
        command.addAll(FLAGS);
        command.add("--user-data-dir=" + Files.createTempDirectory(scratch, "chromium-profile-"));
        command.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(command).directory(scratch.toFile())
                .redirectError(ProcessBuilder.Redirect.DISCARD);
        // what Chromium keeps outside its profile (certificate store, caches) stays in the test's directory too
        for (String home : List.of("HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME")) {
            builder.environment().put(home, scratch.toString());
        }
        Process p = builder.start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(2, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new IllegalStateException("chromium did not finish: " + command);
        }
        return out;
    }
}
