package dev.dprof.consolidator.analysis.messages;

import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.format.TcpRegions;
import dev.dprof.format.profile.ProfileEvent;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Pairs each {@code RECEIVE} of a consolidated profile with its {@code SEND}, in one pass over the
 * profile's causal order (a matched send comes first), remembering whatever the caller attaches
 * to a send until its receive comes. The rules are those of consolidation:
 * <ul>
 * <li>a send and the next receive with equal (channel, key) match; a key sent again while still in
 * flight is ambiguous and neither of its sends is matched; a key reused after its receive matches
 * again, in order;</li>
 * <li>TCP ({@link TcpRegions}): a read matches the write that sent its last byte, the write of its
 * flow with the largest first offset below the read's end; a flow is one direction of one connection
 * whose two ends the consolidator paired. An offset two writes of the flow start at is ambiguous: a
 * read ending in its bytes matches nothing.</li>
 * </ul>
 * Memory is the messages in flight, plus the TCP writes of each flow not yet passed by a read.
 *
 * @param <T> what a send leaves for its receive
 */
public final class MessageMatcher<T> {
    private record Key(long channel, long key) {
    }

    private final int tcpWrite;
    private final int tcpRead;
    private final Map<Key, T> inFlight = new HashMap<>();
    private final Set<Key> ambiguous = new HashSet<>();
    /** Per flow, by first offset: what the write left, or {@link #AMBIGUOUS} for an offset written twice. */
    private final Map<Long, TreeMap<Long, Object>> tcpWrites = new HashMap<>();
    private static final Object AMBIGUOUS = new Object();
    private long ambiguousSends;
    private long droppedReceives;

    public MessageMatcher(ProfileInfo info) {
        this.tcpWrite = regionIndex(info, TcpRegions.WRITE);
        this.tcpRead = regionIndex(info, TcpRegions.READ);
    }

    private static int regionIndex(ProfileInfo info, String name) {
        return info.regions().stream().filter(r -> r.name().equals(name)).mapToInt(ProfileInfo.Region::index)
                .findFirst().orElse(-2);
    }

    /** A send: {@code sent} waits for the receive that matches it. */
    public void send(ProfileEvent e, T sent) {
        if (e.region == tcpWrite) {
            TreeMap<Long, Object> writes = tcpWrites.computeIfAbsent(e.a, k -> new TreeMap<>());
            if (writes.putIfAbsent(e.b, sent) != null) {
                writes.put(e.b, AMBIGUOUS);
                ambiguousSends++;
            }
            return;
        }
        Key key = new Key(e.a, e.b);
        if (ambiguous.contains(key)) {
            ambiguousSends++;
            return;
        }
        if (inFlight.put(key, sent) != null) {
            inFlight.remove(key);
            ambiguous.add(key);
            ambiguousSends += 2;
        }
    }

    /** A receive: what its send left, or null when no send matches it. */
    public T receive(ProfileEvent e) {
        if (e.region != tcpRead) {
            return inFlight.remove(new Key(e.a, e.b));
        }
        TreeMap<Long, Object> writes = tcpWrites.get(e.a);
        Map.Entry<Long, Object> write = writes == null ? null : writes.floorEntry(e.b - 1);
        if (write == null) {
            return null;
        }
        // Later reads end further on: writes before this one can no longer match.
        writes.headMap(write.getKey(), false).clear();
        if (write.getValue() == AMBIGUOUS) {
            droppedReceives++;
            return null;
        }
        @SuppressWarnings("unchecked") // every other value is what send was given
        T sent = (T) write.getValue();
        return sent;
    }

    /** Sends still waiting for their receive (TCP writes excluded: a read may cover several). */
    public int unmatchedSends() {
        return inFlight.size();
    }

    /**
     * Sends whose key was sent again while in flight, so that neither could be matched, and TCP
     * writes at an offset another write of the flow started at.
     */
    public long ambiguousSends() {
        return ambiguousSends;
    }

    /** TCP reads left unmatched because their last byte's offset was written twice. */
    public long droppedReceives() {
        return droppedReceives;
    }
}
