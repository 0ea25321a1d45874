package dev.dprof.format;

/**
 * The numeric event kinds as compile-time constants.
 *
 * <p>The agent's bootstrap part has no dependencies, so it uses these constants only in
 * constant expressions, which {@code javac} inlines; {@link EventKind} is the reader's view of
 * the same codes. An event header is {@code kind | (regionId << REGION_SHIFT)}.
 */
public final class EventCodes {
    public static final int REGION_SHIFT = 8;
    public static final int KIND_MASK = 0xFF;

    public static final int THREAD_START = 1;
    public static final int THREAD_END = 2;
    public static final int ENTER = 3;
    public static final int EXIT = 4;
    public static final int EXIT_THROW = 5;
    public static final int ENTER_INSTANCE = 6;
    public static final int SEND = 7;
    public static final int RECEIVE = 8;
    public static final int BARRIER_ENTER = 9;
    public static final int BARRIER_EXIT = 10;
    public static final int PROGRESS = 11;
    public static final int PROCESS_START = 12;
    public static final int PROCESS_END = 13;
    public static final int PROBE_COST = 14;

    private EventCodes() {
    }

    public static int header(int kind, int regionId) {
        return kind | (regionId << REGION_SHIFT);
    }

    public static int kind(int header) {
        return header & KIND_MASK;
    }

    public static int region(int header) {
        return header >>> REGION_SHIFT;
    }
}
