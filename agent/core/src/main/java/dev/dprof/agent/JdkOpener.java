package dev.dprof.agent;

import java.lang.instrument.Instrumentation;
import java.util.Map;
import java.util.Set;

/**
 * Opens the JDK packages the agent needs to the agent's own module (the unnamed module of its class
 * loader, agent/jar's {@code AgentClassLoader}), never to the application's: Chronicle's
 * ({@code sun.nio.ch}, {@code jdk.internal.ref}, {@code jdk.internal.misc}, {@code sun.misc} and
 * the reflective opens), and {@code jdk.internal.misc} for {@link BootstrapJar}. Then, once the
 * bootstrap classes exist, lets {@code java.base} read the probes' module (the bootstrap loader's
 * unnamed module), for the TCP and virtual-thread advice woven into it, and opens to that module
 * what {@code VirtualThreads} needs to tell carriers from virtual threads and
 * {@code QueueInternals} the FIFO queues' internals. Call {@link #open} before the rings are
 * configured, which initializes {@code VirtualThreads}.
 * Without them Chronicle falls back to read-only and appends fail, on 17 and on 25 alike.
 * {@link Instrumentation#redefineModule} is the agent's sanctioned way to do what
 * {@code --add-exports}/{@code --add-opens} do on the command line.
 */
final class JdkOpener {
    private static final String[] EXPORTS = {"sun.nio.ch", "jdk.internal.ref", "jdk.internal.misc"};
    private static final String[] OPENS = {"java.lang", "java.lang.reflect", "java.nio", "sun.nio.ch", "java.io", "java.util"};

    private JdkOpener() {
    }

    /** What the agent's own module needs; touches nothing of the bootstrap part. */
    static void openToAgent(Instrumentation inst) {
        Module us = JdkOpener.class.getModule();
        Module base = Object.class.getModule();
        Map<String, Set<Module>> exports = new java.util.HashMap<>();
        for (String p : EXPORTS) {
            exports.put(p, Set.of(us));
        }
        Map<String, Set<Module>> opens = new java.util.HashMap<>();
        for (String p : OPENS) {
            opens.put(p, Set.of(us));
        }
        inst.redefineModule(base, Set.of(), exports, opens, Set.of(), Map.of());
        ModuleLayer.boot().findModule("jdk.unsupported").ifPresent(unsupported ->
                inst.redefineModule(unsupported, Set.of(), Map.of("sun.misc", Set.of(us)),
                        Map.of("sun.misc", Set.of(us)), Set.of(), Map.of()));
    }

    /** What the probes' module needs, once the bootstrap classes are defined ({@link BootstrapJar}). */
    static void open(Instrumentation inst) {
        Module base = Object.class.getModule();
        // java.base must also read the module the probes live in, or advice woven into its
        // socket classes could not link to them (the bootstrap loader's unnamed module).
        Module probes = dev.dprof.agent.bootstrap.Probes.class.getModule();
        // VirtualThreads finds a virtual thread's carrier (java.lang) and the carrier's
        // thread-locals (jdk.internal.misc); where the packages do not exist (17) this opens nothing new.
        // FifoHandoff reads the FIFO queues' counts, locks and nodes (QueueInternals).
        inst.redefineModule(base, Set.of(probes), Map.of("jdk.internal.misc", Set.of(probes)),
                Map.of("java.lang", Set.of(probes), "java.util.concurrent", Set.of(probes)), Set.of(), Map.of());
    }
}
