package dev.dprof.calibrator.net;

import java.util.Locale;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Event counters named by an enum, safe to read from any thread while one thread counts: what the
 * server, the node and the relay report instead of crashing or logging on every odd packet.
 */
final class Counters<E extends Enum<E>> {
    private final E[] names;
    private final AtomicLongArray values;

    Counters(Class<E> type) {
        this.names = type.getEnumConstants();
        this.values = new AtomicLongArray(names.length);
    }

    void add(E name) {
        values.incrementAndGet(name.ordinal());
    }

    long get(E name) {
        return values.get(name.ordinal());
    }

    /** {@code name=value} for every non-zero counter, lower case, blank-separated. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        for (E name : names) {
            long v = values.get(name.ordinal());
            if (v != 0) {
                sb.append(sb.length() == 0 ? "" : " ").append(name.name().toLowerCase(Locale.ROOT))
                        .append('=').append(v);
            }
        }
        return sb.length() == 0 ? "-" : sb.toString();
    }
}
