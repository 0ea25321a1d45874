package dev.dprof.agent;

import dev.dprof.settings.DprofSettings;
import java.lang.instrument.Instrumentation;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Opens the JDK packages the agent needs to the agent's own module (the unnamed module of its class
 * loader, agent/jar's {@code AgentClassLoader}), never to the application's: Chronicle's
 * ({@code sun.nio.ch}, {@code jdk.internal.ref}, {@code jdk.internal.misc}, {@code sun.misc} and
 * the reflective opens, as the root pom's {@code dprof.jvm.flags} lists them), among them
 * {@code jdk.internal.misc}, which {@link BootstrapJar} also needs. Then, once the
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
    private JdkOpener() {
    }

    /**
     * What the agent's own module needs; touches nothing of the bootstrap part. The packages are
     * those of the JVM flags Chronicle needs ({@link DprofSettings#chronicleJvmFlags()}, the tools'
     * {@code --add-exports}/{@code --add-opens}), opened to this module instead of to every unnamed one.
     */
    static void openToAgent(Instrumentation inst) {
        Module us = JdkOpener.class.getModule();
        Map<String, Map<String, Set<Module>>> exports = new HashMap<>();
        Map<String, Map<String, Set<Module>>> opens = new HashMap<>();
        for (String flag : DprofSettings.chronicleJvmFlags()) {
            Map<String, Map<String, Set<Module>>> into = flag.startsWith("--add-exports=") ? exports
                    : flag.startsWith("--add-opens=") ? opens : null;
            if (into != null) {
                // --add-opens=MODULE/PACKAGE=ALL-UNNAMED
                String target = flag.substring(flag.indexOf('=') + 1, flag.lastIndexOf('='));
                String module = target.substring(0, target.indexOf('/'));
                into.computeIfAbsent(module, m -> new HashMap<>()).put(target.substring(module.length() + 1), Set.of(us));
            }
        }
        Set<String> modules = new HashSet<>(exports.keySet());
        modules.addAll(opens.keySet());
        for (String name : modules) {
            ModuleLayer.boot().findModule(name).ifPresent(module -> inst.redefineModule(module, Set.of(),
                    exports.getOrDefault(name, Map.of()), opens.getOrDefault(name, Map.of()), Set.of(), Map.of()));
        }
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
