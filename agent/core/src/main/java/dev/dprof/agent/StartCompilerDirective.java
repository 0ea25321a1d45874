package dev.dprof.agent;

import dev.dprof.settings.DprofSettings;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;

/**
 * Keeps the C2 compiler off the code that only the agent's start runs hot, for the length of the
 * start: a compiler directive ({@code Compiler.directives_add}, the diagnostic command behind
 * {@code jcmd PID Compiler.directives_add}) that excludes C2 for ByteBuddy, SnakeYAML and the
 * JDK's class-file writers (its internal ASM on JDK 17, the class-file API later, which spin the
 * lambdas, proxies and method handles of the start), added before the agent loads them and removed
 * before the JIT warm-up ({@link JitWarmup}), which then runs as without the directive: what it
 * prepares C2 for before {@code main} is left to C2.
 *
 * <p>Why: the start runs that code a few thousand times and never again at that rate, and C2 spent
 * more CPU compiling it (ASM's {@code Frame.execute} alone for seconds on a loaded host) than the
 * compiled code ever saved; a method C2 may not compile is compiled by C1 without profiling
 * instead, which the JVM's tiered policy does on its own. BENCHMARKS.md, "Start-up and memory".
 *
 * <p>What the host sees: the methods that became hot during the start keep their C1 code for the
 * life of the JVM (a method C2 refused once is not offered to C2 again); every other method, the
 * application's own copy of ByteBuddy or SnakeYAML included (other classes, loaded later), is
 * compiled as without the agent once the directive is gone. An attach adds no directive: the
 * application runs then, and its methods would be caught too. Nothing is printed either way; a
 * directive that cannot be added leaves the start as it was, and {@code timing=true} says why.
 *
 * <p>Implementation notes: the command is run through the JDK's own implementation of the
 * {@code DiagnosticCommand} MBean ({@code com.sun.management.internal.DiagnosticCommandImpl},
 * opened to the agent here; its native half comes with the class that loads {@code management_ext}),
 * not through the platform MBean server, whose start would load JMX's several hundred classes. The
 * command reads its directive from a file, written to the temporary directory and deleted at once.
 * Directives form a stack; the removal pops the top one, which is the agent's unless a {@code jcmd}
 * added one during the start.
 */
final class StartCompilerDirective {
    /** The module and package of the JDK's diagnostic-command implementation. */
    static final String MODULE = "jdk.management";
    static final String PACKAGE = "com.sun.management.internal";
    static final String DIRECTIVE = "[{match: [\"net/bytebuddy/*.*\", \"org/yaml/snakeyaml/*.*\","
            + " \"jdk/internal/org/objectweb/asm/*.*\", \"jdk/internal/classfile/impl/*.*\"],"
            + " c2: {Exclude: true}}]";

    /** The directive added and not yet removed, if any (one start per JVM). */
    private static StartCompilerDirective added;

    private final Object commands;
    private final Method execute;

    private StartCompilerDirective(Object commands, Method execute) {
        this.commands = commands;
        this.execute = execute;
    }

    /**
     * Adds the directive, until {@link #removeAdded}, or throws with the reason it could not be added
     * (no {@code jdk.management} module, a JDK without the command, a temporary directory not writable).
     */
    static synchronized void add(Instrumentation inst) throws Exception {
        Module management = ModuleLayer.boot().findModule(MODULE)
                .orElseThrow(() -> new IllegalStateException("no module " + MODULE));
        inst.redefineModule(management, Set.of(), Map.of(), Map.of(PACKAGE, Set.of(StartCompilerDirective.class.getModule())),
                Set.of(), Map.of());
        ClassLoader platform = ClassLoader.getPlatformClassLoader();
        // Its static initializer loads the native library of the diagnostic commands (management_ext).
        Class.forName(PACKAGE + ".PlatformMBeanProviderImpl", true, platform);
        Class<?> impl = Class.forName(PACKAGE + ".DiagnosticCommandImpl", true, platform);
        Method bean = impl.getDeclaredMethod("getDiagnosticCommandMBean");
        bean.setAccessible(true);
        Method execute = impl.getDeclaredMethod("executeDiagnosticCommand", String.class);
        execute.setAccessible(true);
        StartCompilerDirective directive = new StartCompilerDirective(bean.invoke(null), execute);
        Path file = Files.createTempFile("dprof-start-jit", ".json");
        try {
            Files.writeString(file, DIRECTIVE, StandardCharsets.US_ASCII);
            String answer = directive.run("Compiler.directives_add " + file);
            if (!answer.contains("1 compiler directives added")) {
                throw new IllegalStateException("Compiler.directives_add answered '" + answer.strip() + "'");
            }
        } finally {
            Files.deleteIfExists(file);
        }
        added = directive;
    }

    /**
     * Pops the directive {@link #add} added, once; a failure leaves it in place, which costs only C2
     * for the same classes.
     */
    static synchronized void removeAdded() {
        StartCompilerDirective directive = added;
        if (directive == null) {
            return;
        }
        added = null;
        try {
            directive.run("Compiler.directives_remove");
        } catch (Exception e) {
            if (DprofSettings.debug()) {
                System.err.println("dprof: the start's compiler directive stays (" + e + ")");
            }
        }
    }

    private String run(String command) throws Exception {
        try {
            Object answer = execute.invoke(commands, command);
            return answer == null ? "" : answer.toString();
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
    }
}
