package dev.dprof.report.html;

import dev.dprof.settings.TestSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Headless Chromium for the tests: Debian's {@code chromium} package, installed here when it is
 * missing and this is a Debian machine the test may administer (root, {@code apt-get} present),
 * so that a fresh CI machine needs nothing by hand.
 */
final class HeadlessChromium {
    private static final String[] NAMES = {"chromium", "chromium-browser", "google-chrome"};

    private final Path executable;

    private HeadlessChromium(Path executable) {
        this.executable = executable;
    }

    static synchronized HeadlessChromium locate(Path log) throws IOException, InterruptedException {
        Path found = onPath();
        if (found == null && Files.isExecutable(Path.of("/usr/bin/apt-get"))
                && "root".equals(System.getProperty("user.name"))) {
            Process install = new ProcessBuilder("apt-get", "install", "-y", "-q", "chromium")
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            if (!install.waitFor(15, TimeUnit.MINUTES) || install.exitValue() != 0) {
                throw new IllegalStateException("installing Debian's chromium package failed; see " + log);
            }
            found = onPath();
        }
        if (found == null) {
            throw new IllegalStateException("headless Chromium is needed: install Debian's chromium package");
        }
        return new HeadlessChromium(found);
    }

    private static Path onPath() {
        return TestSettings.onPath(NAMES).orElse(null);
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
        List<String> command = new ArrayList<>(List.of(executable.toString(), "--headless", "--no-sandbox",
                "--disable-gpu", "--no-first-run", "--disable-extensions", "--user-data-dir="
                        + Files.createTempDirectory("dprof-chromium-")));
        command.addAll(args);
        Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(2, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new IllegalStateException("chromium did not finish: " + command);
        }
        return out;
    }
}
