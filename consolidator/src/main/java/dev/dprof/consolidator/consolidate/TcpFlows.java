package dev.dprof.consolidator.consolidate;

import dev.dprof.format.RecordType;
import dev.dprof.format.RegionInfo;
import dev.dprof.format.TcpConnection;
import dev.dprof.format.TcpRegions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Pairs the two ends of every TCP connection of a run, so that a read is only ever matched with a
 * write of its own connection (docs/BOUNDS.md, "Messages"), and gives each direction of a paired
 * connection one flow: the {@code a} of its writes and reads in the profile.
 *
 * <p>An end is one process's connection ({@link TcpConnection}: its number, both endpoints, the
 * network namespace). Ends whose endpoints are each other's reversed are candidates; a loopback
 * address only names an endpoint within one namespace, every other address within the run. Which of
 * several connections that used the same addresses and ports over time (their epochs) two ends
 * were is decided only where it is proven:
 * <ul>
 * <li>exactly one end on each side: they are one connection;</li>
 * <li>several, all in one clock domain: at one end a 4-tuple holds one connection at a time, and a
 * connection is only set up again once both ends closed the one before, so the events of two epochs
 * never interleave in time. Two ends whose event spans overlap are therefore one connection; an end
 * that overlaps no end, or several, is ambiguous, and so is every end of a side whose ends overlap
 * each other (the assumption does not hold);</li>
 * <li>otherwise (several, in several domains, whose ticks cannot be compared here) every end is
 * ambiguous.</li>
 * </ul>
 * An ambiguous end, or one without a recorded peer, keeps flows of its own that nothing else carries:
 * its writes and reads match nothing, and are counted.
 *
 * <p>Queues before format version 3 name a flow by its two ports only ({@link TcpRegions#legacyFlow}):
 * each port pair of a process is one end with unknown addresses, paired by the same rules (so ports
 * that two processes on one side share are ambiguous; reconnects on the same ports within one
 * process remain one end, whose repeated offsets are dropped as duplicates).
 */
final class TcpFlows {
    /** How an end was paired. */
    enum State {
        PAIRED, NO_PEER, AMBIGUOUS
    }

    /** One process's connection. */
    static final class End {
        final int process;
        final long connection;
        final String local;
        final String remote;
        final String domain;
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        State state = State.NO_PEER;
        /** The flow of its writes, and of its reads. */
        long out;
        long in;

        End(int process, long connection, String local, String remote, String domain) {
            this.process = process;
            this.connection = connection;
            this.local = local;
            this.remote = remote;
            this.domain = domain;
        }

        boolean overlaps(End o) {
            return first <= o.last && o.first <= last;
        }
    }

    /** One process's TCP regions and ends: what pass 2 needs to rewrite the events' flows. */
    static final class OfProcess {
        final int writeRegion;
        final int readRegion;
        private final int process;
        private final boolean legacy;
        final Map<Long, End> ends = new HashMap<>();

        OfProcess(int process, int writeRegion, int readRegion, boolean legacy) {
            this.process = process;
            this.writeRegion = writeRegion;
            this.readRegion = readRegion;
            this.legacy = legacy;
        }

        boolean isTcp(int region) {
            return region == writeRegion || region == readRegion;
        }

        /** The connection number a TCP event's {@code a} names (a legacy read's flow is the reverse of its end's). */
        long connectionOf(int region, long a) {
            if (!legacy || region == writeRegion) {
                return a;
            }
            return TcpRegions.legacyFlow(TcpRegions.legacyToPort(a), TcpRegions.legacyFromPort(a));
        }

        /** The end a TCP event belongs to, or null (a connection the process did not describe). */
        End endOf(int region, long a) {
            return ends.get(connectionOf(region, a));
        }

        /**
         * The profile's {@code a} of a TCP event: its flow. An event of a connection the process did
         * not describe gets a negative flow of its own (process, connection, direction), which no
         * paired flow (counted from 1) and no other event shares.
         */
        long flow(int region, long a) {
            End e = endOf(region, a);
            if (e == null) {
                return Long.MIN_VALUE | (long) process << 33 | (region == writeRegion ? 0 : 1L << 32) | (a & 0xFFFF_FFFFL);
            }
            return region == writeRegion ? e.out : e.in;
        }
    }

    private final List<OfProcess> processes = new ArrayList<>();
    private final List<End> ends = new ArrayList<>();
    private int pairs;
    private final List<String> ambiguousGroups = new ArrayList<>();
    private int undescribed;

    /** Pairs the ends of the inventory's processes, their spans taken from its communication rows. */
    TcpFlows(RunInventory inventory) {
        for (RunInventory.Process p : inventory.processes()) {
            processes.add(describe(p));
        }
        legacyEnds(inventory);
        LongColumns c = inventory.communication;
        for (int r = 0; r < c.size(); r++) {
            OfProcess p = processes.get((int) c.get(r, RunInventory.PROCESS));
            int region = (int) c.get(r, RunInventory.REGION);
            if (p == null || !p.isTcp(region)) {
                continue;
            }
            End e = p.endOf(region, c.get(r, RunInventory.A));
            if (e == null) {
                undescribed++;
                continue;
            }
            long tick = c.get(r, RunInventory.TICK);
            e.first = Math.min(e.first, tick);
            e.last = Math.max(e.last, tick);
        }
        for (int i = 0; i < ends.size(); i++) {
            ends.get(i).out = 2L * i + 1;
            ends.get(i).in = 2L * i + 2;
        }
        pair();
    }

    /** The process's TCP regions and its ends (for a queue before version 3, one per port pair its events name). */
    private OfProcess describe(RunInventory.Process p) {
        int write = -1;
        int read = -1;
        for (RegionInfo r : p.regions().values()) {
            write = r.name().equals(TcpRegions.WRITE) ? r.id() : write;
            read = r.name().equals(TcpRegions.READ) ? r.id() : read;
        }
        if (write < 0 && read < 0) {
            return null;
        }
        String domain = p.header().domainId();
        boolean legacy = p.header().formatVersion() < RecordType.TCP_CONNECTIONS_VERSION;
        OfProcess of = new OfProcess(p.index(), write, read, legacy);
        if (!legacy) {
            for (TcpConnection c : p.connections()) {
                String scope = c.scope();
                End e = new End(p.index(), c.connection(), endpoint(c.localAddress(), c.localPort(), scope),
                        endpoint(c.remoteAddress(), c.remotePort(), scope), domain);
                if (of.ends.putIfAbsent(c.connection(), e) == null) {
                    ends.add(e);
                }
            }
        }
        return of;
    }

    /** A queue before version 3: its ends are the port pairs of its TCP rows. */
    private void legacyEnds(RunInventory inventory) {
        LongColumns c = inventory.communication;
        for (int r = 0; r < c.size(); r++) {
            OfProcess p = processes.get((int) c.get(r, RunInventory.PROCESS));
            int region = (int) c.get(r, RunInventory.REGION);
            if (p == null || !p.legacy || !p.isTcp(region)) {
                continue;
            }
            long connection = p.connectionOf(region, c.get(r, RunInventory.A));
            if (!p.ends.containsKey(connection)) {
                RunInventory.Process process = inventory.processes().get((int) c.get(r, RunInventory.PROCESS));
                End e = new End(process.index(), connection, "?:" + TcpRegions.legacyFromPort(connection),
                        "?:" + TcpRegions.legacyToPort(connection), process.header().domainId());
                p.ends.put(connection, e);
                ends.add(e);
            }
        }
    }

    /** An endpoint's name: its address and port, and for a loopback address the namespace it means something in. */
    static String endpoint(byte[] address, int port, String scope) {
        String name = TcpConnection.endpoint(address, port);
        return TcpConnection.isLoopback(address) ? name + "@" + scope : name;
    }

    private void pair() {
        Map<String, List<List<End>>> groups = new LinkedHashMap<>();
        for (End e : ends) {
            int cmp = e.local.compareTo(e.remote);
            if (cmp == 0) {
                e.state = State.AMBIGUOUS; // connected to itself: both sides at once
                ambiguousGroups.add(e.local + " ↔ itself");
                continue;
            }
            String key = cmp < 0 ? e.local + " ↔ " + e.remote : e.remote + " ↔ " + e.local;
            List<List<End>> sides = groups.computeIfAbsent(key, k -> List.of(new ArrayList<>(), new ArrayList<>()));
            sides.get(cmp < 0 ? 0 : 1).add(e);
        }
        groups.forEach(this::pairGroup);
    }

    private void pairGroup(String key, List<List<End>> sides) {
        List<End> left = sides.get(0);
        List<End> right = sides.get(1);
        if (left.isEmpty() || right.isEmpty()) {
            return; // NO_PEER
        }
        if (left.size() == 1 && right.size() == 1) {
            join(left.get(0), right.get(0));
            return;
        }
        Set<String> domains = new HashSet<>();
        left.forEach(e -> domains.add(e.domain));
        right.forEach(e -> domains.add(e.domain));
        if (domains.size() == 1 && !overlapWithin(left) && !overlapWithin(right)) {
            for (End l : left) {
                End only = onlyOverlapping(l, right);
                if (only != null && onlyOverlapping(only, left) == l) {
                    join(l, only);
                }
            }
        }
        int unresolved = 0;
        for (List<End> side : sides) {
            for (End e : side) {
                if (e.state != State.PAIRED) {
                    e.state = State.AMBIGUOUS;
                    unresolved++;
                }
            }
        }
        if (unresolved > 0) {
            ambiguousGroups.add(key + " (" + left.size() + " and " + right.size() + " connections, " + unresolved
                    + " not told apart)");
        }
    }

    private static boolean overlapWithin(List<End> side) {
        for (int i = 0; i < side.size(); i++) {
            for (int j = i + 1; j < side.size(); j++) {
                if (side.get(i).overlaps(side.get(j))) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The one end of {@code others} whose span overlaps {@code e}'s, or null (none, or several). */
    private static End onlyOverlapping(End e, List<End> others) {
        End only = null;
        for (End o : others) {
            if (e.overlaps(o)) {
                if (only != null) {
                    return null;
                }
                only = o;
            }
        }
        return only;
    }

    private void join(End a, End b) {
        a.state = State.PAIRED;
        b.state = State.PAIRED;
        b.in = a.out;
        a.in = b.out;
        pairs++;
    }

    /** Process {@code index}'s TCP regions and ends, or null when it has no TCP region. */
    OfProcess process(int index) {
        return processes.get(index);
    }

    /** Connections whose two ends were paired. */
    int paired() {
        return pairs;
    }

    /** Ends of the given state. */
    int ends(State state) {
        return (int) ends.stream().filter(e -> e.state == state).count();
    }

    /** TCP events of a connection their process did not describe (its record was lost). */
    int undescribed() {
        return undescribed;
    }

    /** One line per kind of connection that constrains nothing, for the profile's problems. */
    List<String> problems() {
        List<String> lines = new ArrayList<>();
        int ambiguous = ends(State.AMBIGUOUS);
        if (ambiguous > 0) {
            lines.add("TCP: " + ambiguous + " connection ends share addresses and ports with other connections and"
                    + " could not be told apart; their messages constrain nothing: "
                    + String.join("; ", ambiguousGroups.subList(0, Math.min(3, ambiguousGroups.size())))
                    + (ambiguousGroups.size() > 3 ? "; …" : ""));
        }
        if (undescribed > 0) {
            lines.add("TCP: " + undescribed + " events of connections their process did not describe (the record"
                    + " was lost); they match nothing");
        }
        return lines;
    }
}
