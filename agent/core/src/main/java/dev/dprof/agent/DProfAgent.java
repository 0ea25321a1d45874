package dev.dprof.agent;

import java.lang.instrument.Instrumentation;

/**
 * The agent's entry points, {@code -javaagent:dprof.jar=config=dprof.yaml[,out=DIR]} and attach.
 *
 * <p>This class does as little as possible and references nothing of the bootstrap part: those
 * classes must first be appended to the bootstrap class path by {@link BootstrapJar}, and only
 * then may {@link AgentStarter} (a separate class, linked lazily) touch them. Whatever goes wrong,
 * one line on stderr says why and the application runs on unprofiled.
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
            // Chronicle logs through slf4j; its INFO banner is noise, its warnings are not.
            if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
                System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
            }
            BootstrapJar.append(inst);
            phases.mark("bootstrap jar");
            AgentStarter.start(args, inst, attached, phases);
        } catch (Throwable t) {
            System.err.println("dprof: agent not started (" + t + "); the application runs unprofiled");
        }
    }
}
