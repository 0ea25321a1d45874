package dev.dprof.agent;

import java.lang.instrument.Instrumentation;
import java.util.Map;
import java.util.Set;

/**
 * Opens the JDK packages Chronicle needs to the agent's module, so the user adds no JVM flags,
 * and lets {@code java.base} read the probes' module, for the TCP and virtual-thread advice woven
 * into it; and opens to that module what {@code VirtualThreads} needs to tell carriers from
 * virtual threads and {@code QueueInternals} the FIFO queues' internals. Call it before the rings are configured, which initializes {@code VirtualThreads}.
 * Without them Chronicle falls back to read-only and appends fail, on 17 and on 25 alike.
 * {@link Instrumentation#redefineModule} is the agent's sanctioned way to do what
 * {@code --add-exports}/{@code --add-opens} do on the command line.
 */
final class JdkOpener {
    private static final String[] EXPORTS = {"sun.nio.ch", "jdk.internal.ref", "jdk.internal.misc"};
    private static final String[] OPENS = {"java.lang", "java.lang.reflect", "java.nio", "sun.nio.ch", "java.io", "java.util"};

    private JdkOpener() {
    }

    static void open(Instrumentation inst) {
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
        // java.base must also read the module the probes live in, or advice woven into its
        // socket classes could not link to them (the bootstrap loader's unnamed module).
        Module probes = dev.dprof.agent.bootstrap.Probes.class.getModule();
        // VirtualThreads finds a virtual thread's carrier (java.lang) and the carrier's
        // thread-locals (jdk.internal.misc); where the packages do not exist (17) this opens nothing new.
        exports.put("jdk.internal.misc", Set.of(us, probes));
        opens.put("java.lang", Set.of(us, probes));
        // FifoHandoff reads the FIFO queues' counts, locks and nodes (QueueInternals).
        opens.put("java.util.concurrent", Set.of(probes));
        inst.redefineModule(base, Set.of(probes), exports, opens, Set.of(), Map.of());
        ModuleLayer.boot().findModule("jdk.unsupported").ifPresent(unsupported ->
                inst.redefineModule(unsupported, Set.of(), Map.of("sun.misc", Set.of(us)),
                        Map.of("sun.misc", Set.of(us)), Set.of(), Map.of()));
    }
}
