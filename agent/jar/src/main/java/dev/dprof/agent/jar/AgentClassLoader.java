package dev.dprof.agent.jar;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.MalformedURLException;
import java.net.URI;
import java.net.URL;
import java.security.CodeSource;
import java.security.ProtectionDomain;
import java.security.cert.Certificate;
import java.util.Collections;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

/**
 * The agent's own class loader: it defines the classes and serves the resources stored under
 * {@value #PREFIX} in the agent jar, and asks the platform class loader for everything else.
 *
 * <p>Its parent is the platform loader, not the application's, so the agent sees the JDK and the
 * bootstrap classes the agent defined there, and never a class of the application: the
 * application may carry any version of ByteBuddy, Chronicle, JNA or SnakeYAML, and neither side
 * notices the other's. Class files are stored as {@code inst/<name>.classdata}: no other loader
 * can define them (the application loader, which has the agent jar on its class path, looks for
 * {@code <name>.class} at the root), and a class-path scanner does not take them for classes. A
 * resource asked for by its {@code .class} name (ByteBuddy reads advice templates that way) is
 * served from its {@code .classdata} entry. Multi-release entries
 * ({@code inst/META-INF/versions/N/...}) are honoured: the highest N not above the running JDK wins.
 *
 * <p>Implementation notes: the entries are indexed once, at construction (a few thousand names); the
 * jar stays open for the life of the JVM, as the application loader keeps its own jars open. The
 * classes get the agent jar as their code source, which the agent uses to find its jar again.
 */
final class AgentClassLoader extends ClassLoader {
    /** Where the isolated part lives in the agent jar. */
    static final String PREFIX = "inst/";
    /** The extension its class files carry instead of {@code .class}. */
    static final String CLASS_DATA = ".classdata";
    private static final String VERSIONS = "META-INF/versions/";

    static {
        registerAsParallelCapable();
    }

    private final JarFile jar;
    private final String jarUri;
    private final ProtectionDomain domain;
    /** Resource name as the code asks for it (class files as {@code .class}) to its entry in the jar. */
    private final Map<String, String> entries;

    AgentClassLoader(File agentJar) throws IOException {
        super("dprof-agent", ClassLoader.getPlatformClassLoader());
        this.jar = new JarFile(agentJar);
        this.jarUri = agentJar.toURI().toString();
        this.domain = new ProtectionDomain(new CodeSource(agentJar.toURI().toURL(), (Certificate[]) null), null);
        this.entries = index(jar, Runtime.version().feature());
    }

    /** The entries under {@value #PREFIX}, by the name code asks for; multi-release versions resolved. */
    static Map<String, String> index(JarFile jar, int feature) {
        Map<String, String> names = new HashMap<>();
        Map<String, Integer> versions = new HashMap<>();
        Enumeration<JarEntry> all = jar.entries();
        while (all.hasMoreElements()) {
            JarEntry entry = all.nextElement();
            String name = entry.getName();
            if (!name.startsWith(PREFIX) || entry.isDirectory()) {
                continue;
            }
            String path = name.substring(PREFIX.length());
            int version = 0;
            if (path.startsWith(VERSIONS)) {
                int slash = path.indexOf('/', VERSIONS.length());
                if (slash < 0) {
                    continue;
                }
                try {
                    version = Integer.parseInt(path.substring(VERSIONS.length(), slash));
                } catch (NumberFormatException e) {
                    continue;
                }
                if (version > feature) {
                    continue;
                }
                path = path.substring(slash + 1);
            }
            if (path.endsWith(CLASS_DATA)) {
                path = path.substring(0, path.length() - CLASS_DATA.length()) + ".class";
            }
            Integer best = versions.get(path);
            if (best == null || version > best) {
                versions.put(path, version);
                names.put(path, name);
            }
        }
        return names;
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        synchronized (getClassLoadingLock(name)) {
            Class<?> c = findLoadedClass(name);
            if (c == null) {
                // Ours first: the platform loader holds none of these names, so the order only
                // matters if a later JDK adds one, and then the agent keeps the version it was built with.
                c = entries.containsKey(classFile(name)) ? findClass(name) : getParent().loadClass(name);
            }
            if (resolve) {
                resolveClass(c);
            }
            return c;
        }
    }

    @Override
    protected Class<?> findClass(String name) throws ClassNotFoundException {
        String entry = entries.get(classFile(name));
        if (entry == null) {
            throw new ClassNotFoundException(name);
        }
        byte[] bytes;
        try (InputStream in = jar.getInputStream(jar.getJarEntry(entry))) {
            bytes = in.readAllBytes();
        } catch (IOException e) {
            throw new ClassNotFoundException(name + " (" + e + ")", e);
        }
        int dot = name.lastIndexOf('.');
        if (dot > 0) {
            String packageName = name.substring(0, dot);
            if (getDefinedPackage(packageName) == null) {
                try {
                    definePackage(packageName, null, null, null, null, null, null, null);
                } catch (IllegalArgumentException raced) {
                    // another thread defined it meanwhile
                }
            }
        }
        return defineClass(name, bytes, 0, bytes.length, domain);
    }

    @Override
    protected URL findResource(String name) {
        String entry = entries.get(name);
        if (entry == null) {
            return null;
        }
        try {
            return URI.create("jar:" + jarUri + "!/" + entry).toURL();
        } catch (MalformedURLException | IllegalArgumentException e) {
            return null;
        }
    }

    @Override
    protected Enumeration<URL> findResources(String name) {
        URL url = findResource(name);
        return url == null ? Collections.emptyEnumeration() : Collections.enumeration(java.util.List.of(url));
    }

    @Override
    public InputStream getResourceAsStream(String name) {
        String entry = entries.get(name);
        if (entry == null) {
            return super.getResourceAsStream(name);
        }
        try {
            return jar.getInputStream(jar.getJarEntry(entry));
        } catch (IOException e) {
            return null;
        }
    }

    private static String classFile(String className) {
        return className.replace('.', '/') + ".class";
    }
}
