package dev.dprof.agent.bootstrap;

/**
 * An open-addressing table keyed by object identity, with per-entry fields in parallel arrays: the
 * side tables of the handoff probes (a queue's elements in flight, fork/join tasks, waited futures).
 * Not thread-safe: every owner guards it with its own lock.
 *
 * <p>Keys are compared by reference ({@code ==}); {@link System#identityHashCode} only picks the
 * first slot, so two keys with equal hashes are two entries, never one — a key is exact, never a
 * hash that can collide.
 *
 * <h2>Implementation notes</h2>
 * <ul>
 * <li>Linear probing at a load of at most one half, and deletion by backward shift (no
 * tombstones), so a lookup ends at the first empty slot and a table never fills with dead slots.</li>
 * <li>Allocation-free in steady state: the arrays are allocated with the table and replaced only
 * when the table doubles (or halves, {@link #shrinkIfSparse}); no boxing, no per-entry object.</li>
 * <li>The keys are strong references: an owner must remove an entry once its key has left (a take,
 * a purge), which is what the owners' resyncs are for.</li>
 * </ul>
 */
final class IdentitySlots {
    static final int MIN_CAPACITY = 16;

    Object[] keys;
    /** The entry's key of its handoff (a sequence number). */
    long[] seqs;
    /** Copies of the key in flight (queues), or threads waiting (futures). */
    int[] counts;
    /** Per-owner bits ({@link #AMBIGUOUS}, ...). */
    int[] flags;
    /** Puts in progress (queues), or puts stamped (futures). */
    int[] pending;
    /** The resync epoch in which the last put finished (queues). */
    int[] epochs;
    /** The thread inserting the key (queues) or the last thread that stamped its put (futures). */
    Thread[] owners;
    private int size;

    /** The key was put again while in flight: its edges are dropped. */
    static final int AMBIGUOUS = 1;
    /** A future's completion was published by the thread that stamped its put. */
    static final int PUBLISHED = 2;

    IdentitySlots(int capacity) {
        allocate(Math.max(MIN_CAPACITY, Integer.highestOneBit(Math.max(1, capacity - 1)) << 1));
    }

    private void allocate(int capacity) {
        keys = new Object[capacity];
        seqs = new long[capacity];
        counts = new int[capacity];
        flags = new int[capacity];
        pending = new int[capacity];
        epochs = new int[capacity];
        owners = new Thread[capacity];
    }

    int size() {
        return size;
    }

    int capacity() {
        return keys.length;
    }

    private static int home(Object key, int mask) {
        // Fibonacci hashing spreads identity hashes, which are often sequential, over the table.
        return (System.identityHashCode(key) * 0x9E3779B9 >>> 7) & mask;
    }

    /** The slot of {@code key}, or -1. */
    int find(Object key) {
        Object[] k = keys;
        int mask = k.length - 1;
        for (int i = home(key, mask); ; i = (i + 1) & mask) {
            Object there = k[i];
            if (there == key) {
                return i;
            }
            if (there == null) {
                return -1;
            }
        }
    }

    /** Adds {@code key}, which must be absent, with every field zero; returns its slot. */
    int add(Object key) {
        if ((size + 1) * 2 > keys.length) {
            rehash(keys.length * 2);
        }
        int i = freeSlot(key);
        keys[i] = key;
        size++;
        return i;
    }

    private int freeSlot(Object key) {
        int mask = keys.length - 1;
        int i = home(key, mask);
        while (keys[i] != null) {
            i = (i + 1) & mask;
        }
        return i;
    }

    /** Removes the entry in slot {@code i}, moving later entries of its cluster back (no tombstones). */
    void removeAt(int i) {
        int mask = keys.length - 1;
        clear(i);
        size--;
        for (int j = (i + 1) & mask; keys[j] != null; j = (j + 1) & mask) {
            int h = home(keys[j], mask);
            // Move j to the hole i when j's home is not cyclically within (i, j].
            boolean stays = i <= j ? (i < h && h <= j) : (i < h || h <= j);
            if (!stays) {
                move(j, i);
                i = j;
            }
        }
    }

    private void move(int from, int to) {
        keys[to] = keys[from];
        seqs[to] = seqs[from];
        counts[to] = counts[from];
        flags[to] = flags[from];
        pending[to] = pending[from];
        epochs[to] = epochs[from];
        owners[to] = owners[from];
        clear(from);
    }

    private void clear(int i) {
        keys[i] = null;
        seqs[i] = 0;
        counts[i] = 0;
        flags[i] = 0;
        pending[i] = 0;
        epochs[i] = 0;
        owners[i] = null;
    }

    /** Halves the table while it is at most one eighth full, after a purge emptied it. */
    void shrinkIfSparse() {
        int capacity = keys.length;
        while (capacity > MIN_CAPACITY && size * 8 <= capacity) {
            capacity >>= 1;
        }
        if (capacity != keys.length) {
            rehash(capacity);
        }
    }

    private void rehash(int capacity) {
        Object[] k = keys;
        long[] s = seqs;
        int[] c = counts;
        int[] f = flags;
        int[] p = pending;
        int[] e = epochs;
        Thread[] o = owners;
        allocate(capacity);
        for (int j = 0; j < k.length; j++) {
            if (k[j] != null) {
                int i = freeSlot(k[j]);
                keys[i] = k[j];
                seqs[i] = s[j];
                counts[i] = c[j];
                flags[i] = f[j];
                pending[i] = p[j];
                epochs[i] = e[j];
                owners[i] = o[j];
            }
        }
    }
}
