package dev.dprof.agent;

import java.lang.reflect.Field;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The threads the agent's start leaves behind: alive, or registered as shutdown hooks, after the
 * start and not before it. They are the agent's (its drainer, its libraries' cleaners and disk
 * checkers, its hooks), and {@code AgentThreads} keeps the handoff probes off them.
 *
 * <p>Reads {@code ApplicationShutdownHooks.hooks} by reflection, which needs {@code java.lang}
 * open to the agent ({@code JdkOpener}); if that fails, hooks are not counted, and a hook joined by
 * {@code System.exit} may show as a join without its thread's end.
 */
final class StartThreads {
    private StartThreads() {
    }

    /** The threads alive and the shutdown hooks registered now. */
    static Set<Thread> snapshot() {
        Set<Thread> threads = Collections.newSetFromMap(new IdentityHashMap<>());
        threads.addAll(Thread.getAllStackTraces().keySet());
        try {
            Class<?> hooks = Class.forName("java.lang.ApplicationShutdownHooks");
            Field field = hooks.getDeclaredField("hooks");
            field.setAccessible(true);
            synchronized (hooks) {
                Object registered = field.get(null);
                if (registered instanceof Map<?, ?> map) {
                    for (Object hook : map.keySet()) {
                        threads.add((Thread) hook);
                    }
                }
            }
        } catch (ReflectiveOperationException | RuntimeException e) {
            // Not readable here: the hooks are not counted (see the class comment).
        }
        return threads;
    }

    /** The threads of {@link #snapshot} now that were not in {@code before}. */
    static Set<Thread> since(Set<Thread> before) {
        Set<Thread> now = snapshot();
        now.removeAll(before);
        return now;
    }
}
