package dev.dprof.agent.bootstrap;

/**
 * The elements at the head of a FIFO queue in order, as runs: a run of consecutive insertion
 * numbers ({@code first}, {@code first + 1}, …), or a stretch of elements whose numbers are not
 * known ({@link #PRESENT}: in the queue before it was recorded; {@link #LOST}: a removal whose
 * position could not be found made them uncertain). What {@link FifoHandoff} keeps beside its open
 * run when the order stopped being "the k-th removal returns the k-th insertion": after a removal
 * from the middle, an insertion at the head, a removal from the tail.
 *
 * <h2>Implementation notes</h2>
 * <ul>
 * <li>A double-ended ring of runs in two parallel arrays: adding and taking at either end are
 * O(1); a removal at a position walks the runs (as many as the queue's irregularities, never more
 * than its elements) and may split one.</li>
 * <li>Adjacent runs that continue each other are merged, so a queue that only ever loses its
 * head stays one run; empty runs are never kept.</li>
 * <li>Allocation-free in steady state: the arrays double when full and are never shrunk below
 * {@value #MIN_CAPACITY} runs. Not thread-safe: the owner's lock guards it.</li>
 * </ul>
 */
final class KeyRuns {
    /** A stretch of elements that were in the queue before it was recorded. */
    static final long PRESENT = 0;
    /** A stretch of elements whose numbers a removal made uncertain. */
    static final long LOST = -1;
    static final int MIN_CAPACITY = 8;

    private long[] firsts = new long[MIN_CAPACITY];
    private int[] lengths = new int[MIN_CAPACITY];
    /** Slot of the head run. */
    private int head;
    private int runs;
    /** Elements in all runs. */
    private long elements;

    int runs() {
        return runs;
    }

    long elements() {
        return elements;
    }

    private int slot(int i) {
        return (head + i) & (firsts.length - 1);
    }

    /** Whether run {@code first, n} continues right after run {@code a} (same kind, next numbers). */
    private static boolean continues(long a, int aLength, long first) {
        return a <= PRESENT ? first == a : first == a + aLength;
    }

    /** Appends {@code n > 0} elements numbered from {@code first} (or unknown, {@code first <= 0}) at the tail. */
    void addLast(long first, int n) {
        if (n <= 0) {
            return;
        }
        elements += n;
        if (runs > 0) {
            int last = slot(runs - 1);
            if (continues(firsts[last], lengths[last], first) && lengths[last] <= Integer.MAX_VALUE - n) {
                lengths[last] += n;
                return;
            }
        }
        grow();
        int s = slot(runs);
        firsts[s] = first;
        lengths[s] = n;
        runs++;
    }

    /** Prepends {@code n > 0} elements numbered from {@code first} (or unknown) at the head. */
    void addFirst(long first, int n) {
        if (n <= 0) {
            return;
        }
        elements += n;
        if (runs > 0 && continues(first, n, firsts[head]) && first <= PRESENT
                && lengths[head] <= Integer.MAX_VALUE - n) {
            lengths[head] += n;
            return;
        }
        grow();
        head = (head - 1) & (firsts.length - 1);
        firsts[head] = first;
        lengths[head] = n;
        runs++;
    }

    /** Removes the head element; returns its number, or {@link #PRESENT}/{@link #LOST}. Runs must not be empty. */
    long takeFirst() {
        long first = firsts[head];
        elements--;
        if (--lengths[head] == 0) {
            head = (head + 1) & (firsts.length - 1);
            runs--;
        } else if (first > PRESENT) {
            firsts[head] = first + 1;
        }
        return first;
    }

    /** Removes the tail element; returns its number, or {@link #PRESENT}/{@link #LOST}. Runs must not be empty. */
    long takeLast() {
        int last = slot(runs - 1);
        long first = firsts[last];
        int n = lengths[last];
        elements--;
        if (--lengths[last] == 0) {
            runs--;
        }
        return first <= PRESENT ? first : first + n - 1;
    }

    /** Removes {@code n} elements from the head (at most all); returns how many of them were numbered. */
    long dropFirst(long n) {
        long numbered = 0;
        while (n > 0 && runs > 0) {
            int take = (int) Math.min(n, lengths[head]);
            if (firsts[head] > PRESENT) {
                numbered += take;
                firsts[head] += take;
            }
            lengths[head] -= take;
            elements -= take;
            n -= take;
            if (lengths[head] == 0) {
                head = (head + 1) & (firsts.length - 1);
                runs--;
            }
        }
        return numbered;
    }

    /**
     * Removes the element at {@code position} (0: the head), which must be less than
     * {@link #elements}; returns its number, or {@link #PRESENT}/{@link #LOST}. A run split in two
     * takes one more slot.
     */
    long removeAt(long position) {
        int i = 0;
        long before = 0;
        while (before + lengths[slot(i)] <= position) {
            before += lengths[slot(i)];
            i++;
        }
        int s = slot(i);
        long first = firsts[s];
        int n = lengths[s];
        int offset = (int) (position - before);
        long number = first <= PRESENT ? first : first + offset;
        elements--;
        if (first <= PRESENT) {
            if (--lengths[s] == 0) {
                removeRun(i);
            }
        } else if (offset == 0) {
            firsts[s] = first + 1;
            if (--lengths[s] == 0) {
                removeRun(i);
            }
        } else if (offset == n - 1) {
            lengths[s] = n - 1;
        } else {
            // Split: [first, first + offset) stays, [number + 1, first + n) follows it.
            lengths[s] = offset;
            insertRun(i + 1, number + 1, n - offset - 1);
        }
        return number;
    }

    private void removeRun(int i) {
        for (int j = i; j < runs - 1; j++) {
            firsts[slot(j)] = firsts[slot(j + 1)];
            lengths[slot(j)] = lengths[slot(j + 1)];
        }
        runs--;
    }

    private void insertRun(int i, long first, int n) {
        grow();
        for (int j = runs; j > i; j--) {
            firsts[slot(j)] = firsts[slot(j - 1)];
            lengths[slot(j)] = lengths[slot(j - 1)];
        }
        firsts[slot(i)] = first;
        lengths[slot(i)] = n;
        runs++;
    }

    /** The number of the head element, or {@link #PRESENT}/{@link #LOST}; runs must not be empty. */
    long peekFirst() {
        return firsts[head];
    }

    void clear() {
        head = 0;
        runs = 0;
        elements = 0;
    }

    private void grow() {
        if (runs < firsts.length) {
            return;
        }
        long[] f = new long[firsts.length * 2];
        int[] l = new int[f.length];
        for (int i = 0; i < runs; i++) {
            f[i] = firsts[slot(i)];
            l[i] = lengths[slot(i)];
        }
        firsts = f;
        lengths = l;
        head = 0;
    }
}
