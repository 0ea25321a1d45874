package dev.dprof.agent;

import java.lang.instrument.Instrumentation;

/**
 * The agent's entry points, {@code -javaagent:dprof.jar=config=dprof.yaml[,out=DIR]} and attach,
 * called by the agent jar's {@code AgentMain} inside the agent's own class loader (agent/jar).
 *
 * <p>This class does as little as possible and references nothing of the bootstrap part: those
 * classes must first be defined in the bootstrap loader by {@link BootstrapJar}, which needs the
 * JDK's {@code jdk.internal.misc} ({@link JdkOpener#openToAgent}), and only then may
 * {@link AgentStarter} (a separate class, linked lazily) touch them. Whatever goes wrong, one line
 * on stderr says why and the application runs on unprofiled.
 */
public final class DProfAgent {
    private DProfAgent() {
    }

    public static void premain(String args, Instrumentation inst) {
        start(args, inst, false);
    }

    public static void agentmain(String args, Instrumentation inst) {
        start(args, inst, true);
    }

    private static void start(String args, Instrumentation inst, boolean attached) {
        StartPhases phases = new StartPhases(System.nanoTime());
        try {
            System.setProperty("chronicle.analytics.disable", "true");
            if (!attached) {
                addDirective(inst, phases);
            }
            quietLogging();
            JdkOpener.openToAgent(inst);
            BootstrapJar.define();
            phases.mark("bootstrap classes");
            AgentStarter.start(args, inst, attached, phases);
        } catch (Throwable t) {
            System.err.println("dprof: agent not started (" + t + "); the application runs unprofiled");
        } finally {
            StartCompilerDirective.removeAdded(); // if the start ended before its JIT warm-up
        }
    }

    /**
     * The start's compiler directive ({@link StartCompilerDirective}), first, before the agent's
     * libraries load; if it cannot be added, the timing line says why.
     */
    private static void addDirective(Instrumentation inst, StartPhases phases) {
        try {
            StartCompilerDirective.add(inst);
            phases.mark("compiler directive");
        } catch (Exception | LinkageError e) {
            phases.mark("no compiler directive (" + e + ")");
        }
    }

    /**
     * Chronicle logs through the agent's own slf4j; its INFO banner is noise, its warnings are not.
     * slf4j-simple takes its level from a system property when it starts, and the application's
     * slf4j would read the same property: it is set only while the agent's logger starts, then
     * removed, so the application's logging is configured as without the agent.
     */
    private static void quietLogging() {
        String level = "org.slf4j.simpleLogger.defaultLogLevel";
        if (System.getProperty(level) != null) {
            return; // the user chose a level, for both
        }
        System.setProperty(level, "warn");
        try {
            org.slf4j.LoggerFactory.getLogger(DProfAgent.class);
        } finally {
            System.clearProperty(level);
        }
    }
}
