package dev.dprof.agent.instrument;

import dev.dprof.agent.config.RegionKind;
import dev.dprof.agent.config.RegionSpec;
import dev.dprof.agent.config.ValueSource;
import dev.dprof.format.RegionInfo;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Region ids of this process and what they mean. YAML regions get their ids up front (explicit
 * ids first); annotated methods, API calls and progress names are added as they are met. Every
 * new entry waits in {@link #pollUnwritten()} until the drainer writes it — always before any
 * event that uses it, since a region is registered before code that records it can run.
 */
public final class RegionTable {
    public static final int MAX_ID = (1 << 24) - 1;

    private final Map<String, RegionInfo> byName = new ConcurrentHashMap<>();
    private final Queue<RegionInfo> unwritten = new ConcurrentLinkedQueue<>();
    private final BitSet used = new BitSet();
    private int next = 1;

    public RegionTable(List<RegionSpec> specs, String configSource) {
        for (RegionSpec spec : specs) {
            spec.id().ifPresent(used::set);
        }
        for (RegionSpec spec : specs) {
            int id = spec.id().isPresent() ? spec.id().getAsInt() : nextFreeId();
            add(new RegionInfo(id, spec.name(), kindName(spec.kind()), "yaml",
                    configSource + ":" + spec.line(), fixedInstance(spec, configSource)));
        }
    }

    /** A region id taken from a system property once at start: the paper's rank-specific region. */
    private static OptionalLong fixedInstance(RegionSpec spec, String configSource) {
        if (spec.instance().isEmpty() || !(spec.instance().get() instanceof ValueSource.Property property)) {
            return OptionalLong.empty();
        }
        String value = System.getProperty(property.name());
        String where = configSource + ":" + spec.line() + ": region '" + spec.name() + "' instance: ";
        if (value == null) {
            throw new IllegalArgumentException(where + "system property " + property.name() + " is not set");
        }
        try {
            return OptionalLong.of(Long.parseLong(value.trim()));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(where + "system property " + property.name() + "='" + value
                    + "' is not an integer");
        }
    }

    public static String kindName(RegionKind kind) {
        return kind.name().toLowerCase(java.util.Locale.ROOT);
    }

    /** The id of the region named {@code name}, registering it on first use. */
    public int register(String name, String kind, String origin, String location) {
        RegionInfo known = byName.get(name);
        return known != null ? known.id() : registerNew(name, kind, origin, location);
    }

    private synchronized int registerNew(String name, String kind, String origin, String location) {
        RegionInfo known = byName.get(name);
        if (known != null) {
            return known.id();
        }
        RegionInfo info = new RegionInfo(nextFreeId(), name, kind, origin, location, OptionalLong.empty());
        add(info);
        return info.id();
    }

    /** The id of a YAML region, which was registered at start. */
    public int idOf(RegionSpec spec) {
        return byName.get(spec.name()).id();
    }

    /** The next region entry not yet written to the queue, or {@code null}. */
    public RegionInfo pollUnwritten() {
        return unwritten.poll();
    }

    public int size() {
        return byName.size();
    }

    private void add(RegionInfo info) {
        // Queued for the drainer before another thread can find its id without the lock
        // (register's fast path) and record an event of it: its record always comes first.
        unwritten.add(info);
        byName.put(info.name(), info);
    }

    private int nextFreeId() {
        int id = used.nextClearBit(next);
        if (id > MAX_ID) {
            throw new IllegalStateException("more than " + MAX_ID + " regions");
        }
        used.set(id);
        next = id + 1;
        return id;
    }
}
