package dev.dprof.agent.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.agent.bootstrap.bootcheck.BootClassPathMain;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The classes as the agent deploys them: appended to the bootstrap class path of another JVM,
 * where they have no class loader of their own to find the library with.
 */
class BootClassPathTest {
    static String run(String... extraJvmArgs) throws Exception {
        String classes = Path.of(NativeLibrary.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        String testClasses = Path.of(BootClassPathMain.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xbootclasspath/a:" + classes);
        cmd.addAll(List.of(extraJvmArgs));
        cmd.add("-cp");
        cmd.add(testClasses);
        cmd.add(BootClassPathMain.class.getName());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
        return out;
    }

    @Test
    void loadsTheLibraryFromTheBootClassPath() throws Exception {
        NativeRequired.assumeLoaded();
        String out = run();
        assertTrue(out.contains("loader=null\n"), out);
        assertTrue(out.contains("init=dprof: native clock loaded (" + NativeClock.counterName()), out);
        assertTrue(out.contains("native=true\n"), out);
        assertTrue(out.contains("events=12 ended=true name=boot-probe"), out);
    }

    @Test
    void aLibraryThatCannotLoadLeavesTheHostRunning() throws Exception {
        NativeRequired.assumeLoaded();
        String out = run("-D" + BootstrapSettings.NATIVE_TMPDIR_PROPERTY + "=/nonexistent-dprof-dir");
        assertTrue(out.contains("init=dprof: native clock unavailable (NoSuchFileException: /nonexistent-dprof-dir"), out);
        assertTrue(out.contains("; falling back to System.nanoTime\n"), out);
        assertTrue(out.contains("native=false\n"), out);
        assertTrue(out.contains("events=12 ended=true name=boot-probe"), out);
    }
}
