package dev.dprof.format;

/**
 * The first byte of every document in a process's queue says what follows. The layout of
 * each is in {@code docs/FORMAT.md}; {@link #FORMAT_VERSION} is written in the header and a
 * reader refuses versions it does not know.
 */
public final class RecordType {
    public static final int FORMAT_VERSION = 1;

    public static final int HEADER = 'H';
    public static final int REGION = 'R';
    public static final int THREAD = 'T';
    public static final int BATCH = 'B';
    public static final int END = 'E';

    private RecordType() {
    }
}
