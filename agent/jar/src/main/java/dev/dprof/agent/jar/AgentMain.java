package dev.dprof.agent.jar;

import java.io.File;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.InvocationTargetException;

/**
 * The agent jar's entry point ({@code Premain-Class} and {@code Agent-Class} of {@code dprof.jar}):
 * loads the agent in its own class loader ({@link AgentClassLoader}) and hands over to its
 * {@code dev.dprof.agent.DProfAgent}.
 *
 * <p>The JVM puts the agent jar on the application's class path, so whatever sits at the jar's root
 * is the application's to see, and a library the agent brings there could shadow or be shadowed by
 * the application's own version of it. Only this class, its loader, and the bootstrap classes that
 * woven code calls sit at the root; the rest is under {@code inst/}, in a form no other loader
 * defines. The OpenTelemetry Java agent splits its jar the same way (its {@code inst/} and
 * {@code AgentClassLoader}); docs/DESIGN.md, "The agent jar".
 *
 * <p>Implementation notes: one agent loader per JVM, kept in a static field, so that a second
 * attach reaches the same agent, which refuses to start twice. While the agent starts, the thread's
 * context class loader is the agent's, then the application's again. Whatever fails here, one line on
 * stderr says why and the application runs on unprofiled.
 */
public final class AgentMain {
    /** The agent's entry point inside the isolated part. */
    static final String AGENT_CLASS = "dev.dprof.agent.DProfAgent";
    /** The drainer process's entry point inside the isolated part. */
    static final String DRAINER_CLASS = "dev.dprof.agent.sink.ProcessDrainer";

    private static AgentClassLoader loader;

    private AgentMain() {
    }

    public static void premain(String args, Instrumentation inst) {
        start("premain", args, inst);
    }

    public static void agentmain(String args, Instrumentation inst) {
        start("agentmain", args, inst);
    }

    /**
     * The drainer process a host's agent starts (its {@code dev.dprof.agent.sink.DrainerProcess}): the
     * same isolated classes, with {@code main} of {@value #DRAINER_CLASS}.
     */
    public static void main(String[] args) throws Throwable {
        Thread.currentThread().setContextClassLoader(loader());
        Class<?> drainer = Class.forName(DRAINER_CLASS, true, loader());
        try {
            drainer.getMethod("main", String[].class).invoke(null, (Object) args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private static void start(String method, String args, Instrumentation inst) {
        Thread current = Thread.currentThread();
        ClassLoader context = current.getContextClassLoader();
        try {
            AgentClassLoader agentLoader = loader();
            // The agent's libraries find their services through the context loader (Chronicle's
            // cleaner, slf4j's provider), and the threads the agent starts inherit it.
            current.setContextClassLoader(agentLoader);
            Class<?> agent = Class.forName(AGENT_CLASS, true, agentLoader);
            agent.getMethod(method, String.class, Instrumentation.class).invoke(null, args, inst);
        } catch (InvocationTargetException e) {
            System.err.println("dprof: agent not started (" + e.getCause() + "); the application runs unprofiled");
        } catch (Throwable t) {
            System.err.println("dprof: agent not started (" + t + "); the application runs unprofiled");
        } finally {
            current.setContextClassLoader(context);
        }
    }

    private static synchronized AgentClassLoader loader() throws Exception {
        if (loader == null) {
            File jar = new File(AgentMain.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            loader = new AgentClassLoader(jar);
        }
        return loader;
    }
}
