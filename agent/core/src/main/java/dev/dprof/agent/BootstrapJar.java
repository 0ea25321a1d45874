package dev.dprof.agent;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

/**
 * Defines what woven advice calls (the agent jar's {@link #PREFIX} classes) in the bootstrap class
 * loader, so that classes of any class loader — the JDK's own included — reach it, and one copy of
 * the probe state exists in the JVM (the OpenTelemetry agent's split; docs/DESIGN.md, "The agent jar").
 *
 * <p>The classes are defined directly ({@code jdk.internal.misc.Unsafe.defineClass} with no loader,
 * exported to the agent by {@link JdkOpener#openToAgent}), not by appending a jar to the bootstrap
 * search: an append makes the JVM print "Sharing is only supported for boot loader classes because
 * bootstrap classpath has been appended" on the application's output and switches class-data
 * sharing off for every class of the platform and application loaders. All of them are defined at
 * once, each after its superclass and interfaces: the bootstrap loader cannot find a missing one on
 * its own. The application loader, which has the agent jar on its class path too, asks the
 * bootstrap loader first and so finds these. Run from a plain class path (tests), nothing is
 * defined and the classes load normally.
 *
 * <p>Implementation notes: a second start (a second attach) finds {@link #PROBE} defined already and
 * defines nothing; the native library beside the classes is read by {@code NativeLibrary} from the
 * application loader's copy of the agent jar, since the bootstrap loader has no jar to read it from.
 */
final class BootstrapJar {
    static final String PREFIX = "dev/dprof/agent/bootstrap/";
    /** A bootstrap class, to tell whether they are defined already. */
    private static final String PROBE = "dev.dprof.agent.bootstrap.Probes";

    private BootstrapJar() {
    }

    static void define() throws IOException, ReflectiveOperationException {
        File agentJar = agentJar();
        if (agentJar == null || !agentJar.isFile() || definedAlready()) {
            return;
        }
        Map<String, byte[]> classes = new HashMap<>();
        try (JarFile source = new JarFile(agentJar)) {
            Enumeration<JarEntry> entries = source.entries();
            while (entries.hasMoreElements()) {
                JarEntry entry = entries.nextElement();
                String name = entry.getName();
                if (name.startsWith(PREFIX) && name.endsWith(".class")) {
                    try (InputStream in = source.getInputStream(entry)) {
                        classes.put(name.substring(0, name.length() - ".class".length()), in.readAllBytes());
                    }
                }
            }
        }
        Class<?> unsafeClass = Class.forName("jdk.internal.misc.Unsafe");
        Object unsafe = unsafeClass.getMethod("getUnsafe").invoke(null);
        Method defineClass = unsafeClass.getMethod("defineClass", String.class, byte[].class, int.class, int.class,
                ClassLoader.class, ProtectionDomain.class);
        Map<String, Boolean> defined = new HashMap<>();
        for (String name : classes.keySet()) {
            defineWithSupertypes(name, classes, defined, unsafe, defineClass);
        }
    }

    private static void defineWithSupertypes(String name, Map<String, byte[]> classes, Map<String, Boolean> defined,
                                             Object unsafe, Method defineClass) throws ReflectiveOperationException {
        if (defined.putIfAbsent(name, Boolean.TRUE) != null) {
            return;
        }
        byte[] bytes = classes.get(name);
        for (String supertype : supertypes(bytes)) {
            if (classes.containsKey(supertype)) {
                defineWithSupertypes(supertype, classes, defined, unsafe, defineClass);
            }
        }
        defineClass.invoke(unsafe, name.replace('/', '.'), bytes, 0, bytes.length, null, null);
    }

    private static boolean definedAlready() {
        try {
            Class.forName(PROBE, false, null);
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    /**
     * The internal names of a class file's superclass and interfaces (JVMS §4.1: they follow the
     * constant pool, whose entries have to be walked to find where it ends).
     */
    static List<String> supertypes(byte[] b) {
        int count = u2(b, 8);
        int[] offsets = new int[count];
        int p = 10;
        for (int i = 1; i < count; i++) {
            offsets[i] = p;
            int tag = b[p] & 0xff;
            switch (tag) {
                case 1 -> p += 3 + u2(b, p + 1); // Utf8
                case 7, 8, 16, 19, 20 -> p += 3; // Class, String, MethodType, Module, Package
                case 15 -> p += 4; // MethodHandle
                case 3, 4, 9, 10, 11, 12, 17, 18 -> p += 5;
                case 5, 6 -> { // Long, Double take two slots
                    p += 9;
                    i++;
                }
                default -> throw new IllegalArgumentException("constant pool tag " + tag + " at " + p);
            }
        }
        int superIndex = u2(b, p + 4);
        int interfaces = u2(b, p + 6);
        List<String> names = new ArrayList<>(interfaces + 1);
        if (superIndex != 0) {
            names.add(className(b, offsets, superIndex));
        }
        for (int i = 0; i < interfaces; i++) {
            names.add(className(b, offsets, u2(b, p + 8 + 2 * i)));
        }
        return names;
    }

    private static String className(byte[] b, int[] offsets, int classIndex) {
        int utf8 = offsets[u2(b, offsets[classIndex] + 1)];
        // class names of ours and the JDK's are ASCII, where modified UTF-8 is plain UTF-8
        return new String(b, utf8 + 3, u2(b, utf8 + 1), StandardCharsets.UTF_8);
    }

    private static int u2(byte[] b, int at) {
        return ((b[at] & 0xff) << 8) | (b[at + 1] & 0xff);
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
