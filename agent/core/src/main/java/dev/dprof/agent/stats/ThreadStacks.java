package dev.dprof.agent.stats;

import java.util.Arrays;

/**
 * Thread id to {@link ThreadStack}, without boxing: open addressing with linear probing, deletion by
 * backward shift (Knuth, TAOCP vol. 3, §6.4, Algorithm R), so ended threads leave nothing behind.
 *
 * <h2>Implementation notes</h2>
 * A lookup allocates nothing; the tables grow (doubling) when three quarters are taken, which a steady
 * set of threads does once.
 */
final class ThreadStacks {
    private long[] keys = new long[64];
    private ThreadStack[] values = new ThreadStack[64];
    private int size;

    /** The stack of {@code thread}, made empty if it has none. */
    ThreadStack get(long thread) {
        int mask = keys.length - 1;
        for (int i = slot(thread, mask); ; i = (i + 1) & mask) {
            ThreadStack s = values[i];
            if (s == null) {
                s = new ThreadStack();
                keys[i] = thread;
                values[i] = s;
                if (++size * 4 > keys.length * 3) {
                    grow();
                }
                return s;
            }
            if (keys[i] == thread) {
                return s;
            }
        }
    }

    /** Removes {@code thread}'s stack, if any, and returns it. */
    ThreadStack remove(long thread) {
        int mask = keys.length - 1;
        int i = slot(thread, mask);
        while (values[i] != null && keys[i] != thread) {
            i = (i + 1) & mask;
        }
        ThreadStack removed = values[i];
        if (removed == null) {
            return null;
        }
        values[i] = null;
        size--;
        // Shift back every later entry of the cluster whose home slot lies cyclically at or before the hole.
        int hole = i;
        for (int j = (i + 1) & mask; values[j] != null; j = (j + 1) & mask) {
            int home = slot(keys[j], mask);
            boolean movable = hole <= j ? home <= hole || home > j : home <= hole && home > j;
            if (movable) {
                keys[hole] = keys[j];
                values[hole] = values[j];
                values[j] = null;
                hole = j;
            }
        }
        return removed;
    }

    int size() {
        return size;
    }

    /** Calls {@code each} on every stack. */
    void forEach(java.util.function.Consumer<ThreadStack> each) {
        for (ThreadStack s : values) {
            if (s != null) {
                each.accept(s);
            }
        }
    }

    private void grow() {
        long[] oldKeys = keys;
        ThreadStack[] oldValues = values;
        keys = new long[oldKeys.length * 2];
        values = new ThreadStack[oldKeys.length * 2];
        int mask = keys.length - 1;
        for (int k = 0; k < oldKeys.length; k++) {
            if (oldValues[k] != null) {
                int i = slot(oldKeys[k], mask);
                while (values[i] != null) {
                    i = (i + 1) & mask;
                }
                keys[i] = oldKeys[k];
                values[i] = oldValues[k];
            }
        }
        Arrays.fill(oldValues, null);
    }

    private static int slot(long key, int mask) {
        long h = key * 0x9E3779B97F4A7C15L;
        return (int) (h >>> 32) & mask;
    }
}
