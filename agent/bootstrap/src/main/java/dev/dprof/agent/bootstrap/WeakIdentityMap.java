package dev.dprof.agent.bootstrap;

import java.lang.ref.WeakReference;
import java.util.function.Function;

/**
 * Per-object state of the handoff probes (a queue's {@link QueueHandoff} or {@link FifoHandoff}), keyed weakly by the
 * object's identity so that a queue the application drops is collected with its state.
 *
 * <h2>Implementation notes</h2>
 * <ul>
 * <li>Reads take no lock: the table is an array of immutable entries ({@code final} fields, so a
 * reader that sees an entry sees it whole) published through a volatile field. A reader that
 * misses an entry being added falls back to {@link #computeIfAbsent}, which locks and looks again.</li>
 * <li>One {@link WeakReference} per key, made when the key's state is made — never per lookup.</li>
 * <li>Entries whose key was collected stay in place (so probing stays correct) until the next
 * rebuild, which keeps only live entries and doubles the table only if they fill a quarter.</li>
 * </ul>
 */
final class WeakIdentityMap<V> {
    private static final class Entry<V> extends WeakReference<Object> {
        final V value;

        Entry(Object key, V value) {
            super(key);
            this.value = value;
        }
    }

    private volatile Entry<V>[] table = newTable(64);
    /** Slots used, including entries whose key was collected; guarded by {@code this}. */
    private int used;

    @SuppressWarnings("unchecked")
    private static <V> Entry<V>[] newTable(int capacity) {
        return (Entry<V>[]) new Entry<?>[capacity];
    }

    private static int home(Object key, int mask) {
        return (System.identityHashCode(key) * 0x9E3779B9 >>> 7) & mask;
    }

    /** The value of {@code key}, or null; never locks. */
    V get(Object key) {
        Entry<V>[] t = table;
        int mask = t.length - 1;
        for (int i = home(key, mask); ; i = (i + 1) & mask) {
            Entry<V> e = t[i];
            if (e == null) {
                return null;
            }
            if (e.get() == key) {
                return e.value;
            }
        }
    }

    /** The value of {@code key}, made by {@code make} if absent (under the map's lock). */
    synchronized V computeIfAbsent(Object key, Function<Object, V> make) {
        V known = get(key);
        if (known != null) {
            return known;
        }
        V value = make.apply(key);
        Entry<V>[] t = table;
        if ((used + 1) * 2 > t.length) {
            t = rebuild(t);
        }
        int mask = t.length - 1;
        int i = home(key, mask);
        while (t[i] != null) {
            i = (i + 1) & mask;
        }
        t[i] = new Entry<>(key, value);
        used++;
        return value;
    }

    /** Live values, for a final summary; locks. */
    synchronized int live() {
        int n = 0;
        for (Entry<V> e : table) {
            if (e != null && e.get() != null) {
                n++;
            }
        }
        return n;
    }

    private Entry<V>[] rebuild(Entry<V>[] old) {
        int live = 0;
        for (Entry<V> e : old) {
            if (e != null && e.get() != null) {
                live++;
            }
        }
        int capacity = old.length;
        while ((live + 1) * 4 > capacity) {
            capacity *= 2;
        }
        Entry<V>[] t = newTable(capacity);
        int mask = capacity - 1;
        for (Entry<V> e : old) {
            Object key = e == null ? null : e.get();
            if (key != null) {
                int i = home(key, mask);
                while (t[i] != null) {
                    i = (i + 1) & mask;
                }
                t[i] = e;
            }
        }
        used = live;
        table = t;
        return t;
    }
}
