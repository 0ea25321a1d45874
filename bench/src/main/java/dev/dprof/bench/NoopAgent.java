package dev.dprof.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.instrument.Instrumentation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

/**
 * A {@code -javaagent} that does nothing: what the JVM charges any agent, whoever wrote it. With a
 * JVMTI environment loaded, HotSpot turns on work that no agent asks for (for virtual threads, a
 * JVMTI transition at every mount and unmount); a benchmark that measures dprof against this agent
 * measures dprof's own cost.
 */
public final class NoopAgent {
    private NoopAgent() {
    }

    public static void premain(String args, Instrumentation instrumentation) {
        // nothing: loading an agent is the whole point
    }

    /** Writes a jar holding only this class with {@code Premain-Class} set, and returns its path. */
    static Path writeJar(Path dir) throws IOException {
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().putValue("Premain-Class", NoopAgent.class.getName());
        String entry = NoopAgent.class.getName().replace('.', '/') + ".class";
        Path jar = dir.resolve("noop-agent.jar");
        try (OutputStream file = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(file, manifest);
             InputStream bytes = NoopAgent.class.getClassLoader().getResourceAsStream(entry)) {
            if (bytes == null) {
                throw new IOException("cannot read " + entry + " from the benchmark's class path");
            }
            out.putNextEntry(new JarEntry(entry));
            bytes.transferTo(out);
            out.closeEntry();
        }
        return jar;
    }
}
