package dev.dprof.agent;

import java.lang.ref.Reference;
import java.lang.reflect.Field;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;

/**
 * Keeps the agent's start from adding inheritable thread-locals to the thread that runs it. The
 * libraries the agent uses (Chronicle's exception handlers) read {@code InheritableThreadLocal}s on
 * the thread that opens the queue, which leaves an entry each in that thread's map, and every
 * thread it starts afterwards copies the map: that is {@code main}, and through it every thread
 * of the application, virtual ones included (about 170 bytes each, measured with 100 000 parked
 * virtual threads). {@link #added} removes what the start added, and nothing else.
 *
 * <p>Reads {@code Thread.inheritableThreadLocals} by reflection, which needs {@code java.lang}
 * open to the agent ({@code JdkOpener}); if that fails it does nothing.
 */
final class InheritedLocals {
    private InheritedLocals() {
    }

    /** The calling thread's inheritable thread-locals now. */
    static Set<ThreadLocal<?>> snapshot() {
        Set<ThreadLocal<?>> keys = Collections.newSetFromMap(new IdentityHashMap<>());
        try {
            Field mapField = Thread.class.getDeclaredField("inheritableThreadLocals");
            mapField.setAccessible(true);
            Object map = mapField.get(Thread.currentThread());
            if (map == null) {
                return keys;
            }
            Field tableField = map.getClass().getDeclaredField("table");
            tableField.setAccessible(true);
            for (Object entry : (Object[]) tableField.get(map)) {
                if (entry instanceof Reference<?> ref && ref.get() instanceof ThreadLocal<?> key) {
                    keys.add(key);
                }
            }
        } catch (ReflectiveOperationException | RuntimeException e) {
            // Not readable here: nothing is removed.
        }
        return keys;
    }

    /** Removes from the calling thread the inheritable thread-locals that are not in {@code before}. */
    static void added(Set<ThreadLocal<?>> before) {
        for (ThreadLocal<?> key : snapshot()) {
            if (!before.contains(key)) {
                key.remove();
            }
        }
    }
}
