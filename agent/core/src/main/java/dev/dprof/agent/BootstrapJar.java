package dev.dprof.agent;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.Instrumentation;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Enumeration;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;

/**
 * Puts what woven advice calls onto the bootstrap class path, so that classes of any class
 * loader — the JDK's own included — reach it (the OpenTelemetry agent's split, STYLE.md).
 *
 * <p>The classes live in the agent jar under {@link #PREFIX}; they are copied into a small jar of
 * their own which is appended to the bootstrap search. Delegation is parent-first, so from then
 * on the application class loader resolves them from the bootstrap loader too, and one copy of
 * the probe state exists in the JVM. Run from a plain class path (tests), nothing is appended and
 * the classes load normally.
 */
final class BootstrapJar {
    static final String PREFIX = "dev/dprof/agent/bootstrap/";

    private BootstrapJar() {
    }

    static void append(Instrumentation inst) throws IOException {
        File agentJar = agentJar();
        if (agentJar == null || !agentJar.isFile()) {
            return;
        }
        Path copy = Files.createTempFile("dprof-bootstrap-", ".jar");
        copy.toFile().deleteOnExit();
        try (JarFile source = new JarFile(agentJar);
             JarOutputStream out = new JarOutputStream(Files.newOutputStream(copy))) {
            Enumeration<JarEntry> entries = source.entries();
            while (entries.hasMoreElements()) {
                JarEntry entry = entries.nextElement();
                if (entry.getName().startsWith(PREFIX) && !entry.isDirectory()) {
                    out.putNextEntry(new JarEntry(entry.getName()));
                    try (InputStream in = source.getInputStream(entry)) {
                        in.transferTo(out);
                    }
                    out.closeEntry();
                }
            }
        }
        inst.appendToBootstrapClassLoaderSearch(new JarFile(copy.toFile()));
    }

    private static File agentJar() {
        try {
            var source = DProfAgent.class.getProtectionDomain().getCodeSource();
            return source == null ? null : new File(source.getLocation().toURI());
        } catch (URISyntaxException | SecurityException e) {
            return null;
        }
    }

}
