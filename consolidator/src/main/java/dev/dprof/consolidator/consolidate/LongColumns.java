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

    long get(int row, int column) {
        return columns[column][row];
    }

    int size() {
        return size;
    }
}
