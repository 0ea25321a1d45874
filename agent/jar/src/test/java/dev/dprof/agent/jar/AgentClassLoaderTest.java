package dev.dprof.agent.jar;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent's class loader on a jar laid out as agent/jar lays out dprof.jar: classes under
 * {@code inst/} as {@code .classdata}, resources beside them, multi-release versions.
 */
class AgentClassLoaderTest {
    /** A class the test's own loader has too; the agent loader must define its own copy. */
    public static final class Sample {
        @Override
        public String toString() {
            return "sample";
        }
    }

    @TempDir
    Path tmp;

    /** The jar, written on first use in each test (a loader keeps it open: it must not be rewritten). */
    private Path jar() throws IOException {
        Path jar = tmp.resolve("agent.jar");
        if (Files.exists(jar)) {
            return jar;
        }
        String sample = Sample.class.getName().replace('.', '/');
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
            put(out, "inst/" + sample + ".classdata", classBytes(Sample.class));
            put(out, "inst/dprof/note.txt", "plain".getBytes(StandardCharsets.UTF_8));
            put(out, "inst/META-INF/versions/11/dprof/note.txt", "for 11".getBytes(StandardCharsets.UTF_8));
            put(out, "inst/META-INF/versions/9999/dprof/note.txt", "from the future".getBytes(StandardCharsets.UTF_8));
            put(out, "inst/META-INF/services/dprof.Service", "dprof.Impl\n".getBytes(StandardCharsets.UTF_8));
        }
        return jar;
    }

    @Test
    void definesItsOwnCopyOfTheIsolatedClasses() throws Exception {
        AgentClassLoader loader = new AgentClassLoader(jar().toFile());
        Class<?> own = loader.loadClass(Sample.class.getName());
        assertNotSame(Sample.class, own);
        assertSame(loader, own.getClassLoader());
        assertEquals("sample", own.getDeclaredConstructor().newInstance().toString());
        assertEquals(jar().toUri().toURL(), own.getProtectionDomain().getCodeSource().getLocation());
    }

    @Test
    void seesTheJdkButNotTheApplicationClassPath() throws Exception {
        AgentClassLoader loader = new AgentClassLoader(jar().toFile());
        assertSame(String.class, loader.loadClass("java.lang.String"));
        assertSame(java.sql.Connection.class, loader.loadClass("java.sql.Connection")); // platform loader
        assertThrows(ClassNotFoundException.class, () -> loader.loadClass(Test.class.getName()));
    }

    @Test
    void anOrdinaryLoaderOnTheSameJarCannotDefineThem() throws Exception {
        try (URLClassLoader application = new URLClassLoader(new URL[] {jar().toUri().toURL()}, null)) {
            assertThrows(ClassNotFoundException.class, () -> application.loadClass(Sample.class.getName()));
            assertNull(application.getResource("dprof/note.txt"));
        }
    }

    @Test
    void servesClassFilesAndResourcesByTheirOwnNames() throws Exception {
        AgentClassLoader loader = new AgentClassLoader(jar().toFile());
        String classFile = Sample.class.getName().replace('.', '/') + ".class";
        try (InputStream in = loader.getResourceAsStream(classFile)) {
            assertNotNull(in, "ByteBuddy reads advice templates as .class resources");
            assertArrayEquals(classBytes(Sample.class), in.readAllBytes());
        }
        assertNotNull(loader.getResource(classFile));
        assertNotNull(loader.getResources("META-INF/services/dprof.Service").nextElement());
        try (InputStream in = loader.getResource("dprof/note.txt").openStream()) {
            assertEquals("for 11", new String(in.readAllBytes(), StandardCharsets.UTF_8),
                    "the highest multi-release version not above the running JDK wins");
        }
    }

    @Test
    void indexIgnoresVersionsAboveTheRunningJdk() throws Exception {
        try (java.util.jar.JarFile jar = new java.util.jar.JarFile(jar().toFile())) {
            Map<String, String> on9 = AgentClassLoader.index(jar, 9);
            assertEquals("inst/dprof/note.txt", on9.get("dprof/note.txt"));
            Map<String, String> on11 = AgentClassLoader.index(jar, 11);
            assertEquals("inst/META-INF/versions/11/dprof/note.txt", on11.get("dprof/note.txt"));
        }
    }

    private static byte[] classBytes(Class<?> type) throws IOException {
        try (InputStream in = type.getClassLoader().getResourceAsStream(type.getName().replace('.', '/') + ".class")) {
            return in.readAllBytes();
        }
    }

    private static void put(JarOutputStream out, String name, byte[] bytes) throws IOException {
        out.putNextEntry(new JarEntry(name));
        out.write(bytes);
        out.closeEntry();
    }
}
