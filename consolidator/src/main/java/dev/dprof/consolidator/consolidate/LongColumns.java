package dev.dprof.consolidator.consolidate;

import java.util.Arrays;

/** A growable table of {@code long} columns: compact storage for millions of message events. */
final class LongColumns {
    private final long[][] columns;
    private int size;

    LongColumns(int columns) {
        this.columns = new long[columns][16];
    }

    int add(long... values) {
        if (size == columns[0].length) {
            for (int c = 0; c < columns.length; c++) {
                columns[c] = Arrays.copyOf(columns[c], size * 2);
            }
        }
        for (int c = 0; c < columns.length; c++) {
            columns[c][size] = values[c];
        }
        return size++;
    }

    /** Appends every row of {@code other}, in its order. */
    void addAll(LongColumns other) {
        int need = size + other.size;
        if (need > columns[0].length) {
            for (int c = 0; c < columns.length; c++) {
                columns[c] = Arrays.copyOf(columns[c], Math.max(need, size * 2));
            }
        }
        for (int c = 0; c < columns.length; c++) {
            System.arraycopy(other.columns[c], 0, columns[c], size, other.size);
        }
        size = need;
    }

    long get(int row, int column) {
        return columns[column][row];
    }

    int size() {
        return size;
    }
}
