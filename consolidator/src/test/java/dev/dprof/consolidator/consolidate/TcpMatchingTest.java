package dev.dprof.consolidator.consolidate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.consolidator.analysis.messages.MessageMatcher;
import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.consolidator.synthetic.Consolidated;
import dev.dprof.format.EventKind;
import dev.dprof.format.RecordType;
import dev.dprof.format.profile.ProfileEvent;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TCP reads are matched only with writes of their own connection (docs/BOUNDS.md, "Messages"): two
 * clients on different addresses with the same port towards one server, a reconnect on the same
 * four ports, an offset written twice, and queues of format version 2, whose flows are port pairs.
 * The truth is known by construction: the server serves each connection on a thread of its own,
 * and a match is right when its write comes from the thread (of the process) that truly wrote.
 */
class TcpMatchingTest {
    private static final String DOMAIN = "tsc@test";
    private static final String SERVER = "127.0.0.1:8080";

    /** The profile's matched TCP pairs as (writer stream, reader stream), and its info. */
    private record Matches(ProfileInfo info, List<int[]> pairs, List<ProfileEvent> events) {
        long wrong(Map<Integer, Integer> peerOf) {
            return pairs.stream().filter(p -> peerOf.get(p[1]) != p[0]).count();
        }

        long readsOfTcp() {
            return events.stream().filter(e -> e.kind == EventKind.RECEIVE).count();
        }
    }

    private static Matches consolidate(Path run, Path out) throws Exception {
        ProfileInfo info = Consolidator.run(new Consolidator.Options(List.of(run), List.of(), out,
                Consolidator.Sync.NONE, null, Optional.empty()), n -> { });
        List<ProfileEvent> events = Consolidated.readAll(Profile.open(out));
        MessageMatcher<Integer> matcher = new MessageMatcher<>(info);
        List<int[]> pairs = new java.util.ArrayList<>();
        for (ProfileEvent e : events) {
            if (e.kind == EventKind.SEND) {
                matcher.send(e, e.stream);
            } else if (e.kind == EventKind.RECEIVE) {
                Integer writer = matcher.receive(e);
                if (writer != null) {
                    pairs.add(new int[] {writer, e.stream});
                }
            }
        }
        return new Matches(info, pairs, events);
    }

    /** The stream index of (process pid, thread) in the profile. */
    private static int stream(ProfileInfo info, long pid, long thread) {
        int process = info.processes().stream().filter(p -> p.pid() == pid).findFirst().orElseThrow().index();
        return info.streams().stream().filter(s -> s.process() == process && s.thread() == thread).findFirst()
                .orElseThrow().index();
    }

    /**
     * Client A (127.0.0.2:40555) and client B (127.0.0.3:40555) each send a 16-byte request and read
     * a 16-byte reply; the server serves A on thread 10 and B on thread 11. B's request is written
     * after A's and read first: keyed by ports, both requests were one flow with offset 0 written
     * twice, and a read could take the other client's write.
     */
    private static void twoClientsOnePort(Path run, int version) {
        try (TcpQueues server = new TcpQueues(run.resolve("server"), version, 1, DOMAIN);
             TcpQueues a = new TcpQueues(run.resolve("a"), version, 2, DOMAIN);
             TcpQueues b = new TcpQueues(run.resolve("b"), version, 3, DOMAIN)) {
            if (version >= RecordType.TCP_CONNECTIONS_VERSION) {
                a.connection(1, "127.0.0.2:40555", SERVER);
                b.connection(1, "127.0.0.3:40555", SERVER);
                server.connection(1, SERVER, "127.0.0.2:40555");
                server.connection(2, SERVER, "127.0.0.3:40555");
            }
            a.thread(1).write(100, 1, 40555, 8080, 0).read(400, 1, 40555, 8080, 16).flush();
            b.thread(1).write(110, 1, 40555, 8080, 0).read(330, 1, 40555, 8080, 16).flush();
            server.thread(11).read(200, 2, 8080, 40555, 16).write(300, 2, 8080, 40555, 0).flush();
            server.thread(10).read(250, 1, 8080, 40555, 16).write(350, 1, 8080, 40555, 0).flush();
        }
    }

    private static Map<Integer, Integer> twoClientsPeers(ProfileInfo info) {
        int a = stream(info, 2, 1);
        int b = stream(info, 3, 1);
        int sa = stream(info, 1, 10);
        int sb = stream(info, 1, 11);
        return Map.of(a, sa, sa, a, b, sb, sb, b);
    }

    @Test
    void twoClientsOnDifferentAddressesWithOnePortAreTwoConnections(@TempDir Path dir) throws Exception {
        twoClientsOnePort(dir.resolve("run"), RecordType.FORMAT_VERSION);
        Matches m = consolidate(dir.resolve("run"), dir.resolve("profile"));
        assertEquals(0, m.wrong(twoClientsPeers(m.info())), "wrong matches");
        assertEquals(4, m.pairs().size(), "every read matched");
        assertEquals(4, m.info().messages().matched());
        assertEquals(new ProfileInfo.Tcp(2, 0, 0, 0, 0), m.info().messages().tcp());
        assertEquals(0, m.info().causalityConflicts());
    }

    /** The same run written by an agent of format version 2: its flows are ports only, so nothing is matched, and nothing wrong. */
    @Test
    void aVersionTwoQueueIsReadAndItsCollidingPortsMatchNothing(@TempDir Path dir) throws Exception {
        twoClientsOnePort(dir.resolve("run"), 2);
        Matches m = consolidate(dir.resolve("run"), dir.resolve("profile"));
        assertEquals(0, m.wrong(twoClientsPeers(m.info())), "wrong matches");
        assertEquals(0, m.info().messages().matched());
        assertEquals(4, m.readsOfTcp(), "every event is still in the profile");
        ProfileInfo.Tcp tcp = m.info().messages().tcp();
        assertEquals(0, tcp.connections());
        assertEquals(3, tcp.ambiguous(), "two client ends on one port pair, and the server's one");
        assertTrue(m.info().problems().stream().anyMatch(p -> p.startsWith("TCP: 3 connection ends")),
                m.info().problems()::toString);
    }

    /** A version 2 queue whose port pairs are unique is matched as before. */
    @Test
    void aVersionTwoQueueWithUniquePortsIsStillMatched(@TempDir Path dir) throws Exception {
        Path run = dir.resolve("run");
        try (TcpQueues server = new TcpQueues(run.resolve("server"), 2, 1, DOMAIN);
             TcpQueues a = new TcpQueues(run.resolve("a"), 2, 2, DOMAIN)) {
            a.thread(1).write(100, 0, 40555, 8080, 0).write(120, 0, 40555, 8080, 8).read(400, 0, 40555, 8080, 4)
                    .flush();
            server.thread(10).read(200, 0, 8080, 40555, 12).write(300, 0, 8080, 40555, 0).flush();
        }
        Matches m = consolidate(run, dir.resolve("profile"));
        assertEquals(2, m.pairs().size());
        assertEquals(0, m.wrong(Map.of(stream(m.info(), 2, 1), stream(m.info(), 1, 10), stream(m.info(), 1, 10),
                stream(m.info(), 2, 1))));
        assertEquals(new ProfileInfo.Tcp(1, 0, 0, 0, 0), m.info().messages().tcp());
    }

    /**
     * One client reconnects on the same four ports: its first connection is served on thread 10, the
     * second on thread 11. All in one clock domain, the two epochs' events never interleave, so each
     * end pairs with the one its events overlap.
     */
    @Test
    void aReconnectOnTheSamePortsIsAnotherEpoch(@TempDir Path dir) throws Exception {
        Path run = dir.resolve("run");
        try (TcpQueues server = new TcpQueues(run.resolve("server"), RecordType.FORMAT_VERSION, 1, DOMAIN);
             TcpQueues a = new TcpQueues(run.resolve("a"), RecordType.FORMAT_VERSION, 2, DOMAIN)) {
            a.connection(1, "127.0.0.2:40555", SERVER);
            server.connection(1, SERVER, "127.0.0.2:40555");
            a.connection(2, "127.0.0.2:40555", SERVER);
            server.connection(2, SERVER, "127.0.0.2:40555");
            TcpQueues.Thread client = a.thread(1);
            client.write(100, 1, 0, 0, 0).read(400, 1, 0, 0, 16);
            client.write(1000, 2, 0, 0, 0).read(1400, 2, 0, 0, 16).flush();
            server.thread(10).read(200, 1, 0, 0, 16).write(300, 1, 0, 0, 0).flush();
            server.thread(11).read(1200, 2, 0, 0, 16).write(1300, 2, 0, 0, 0).flush();
        }
        Matches m = consolidate(run, dir.resolve("profile"));
        ProfileInfo info = m.info();
        assertEquals(new ProfileInfo.Tcp(2, 0, 0, 0, 0), info.messages().tcp());
        assertEquals(4, m.pairs().size());
        int client = stream(info, 2, 1);
        for (int[] p : m.pairs()) {
            int serverThread = p[0] == client ? p[1] : p[0];
            assertTrue(serverThread == stream(info, 1, 10) || serverThread == stream(info, 1, 11));
        }
        // the first epoch's pairs are on thread 10, the second's on thread 11: by construction the
        // first two pairs in causal order are the first epoch's
        assertEquals(List.of(stream(info, 1, 10), stream(info, 1, 10), stream(info, 1, 11), stream(info, 1, 11)),
                m.pairs().stream().map(p -> p[0] == client ? p[1] : p[0]).toList());
    }

    /** Two ends on one side whose spans overlap break the one-connection-per-4-tuple rule: nothing is paired. */
    @Test
    void overlappingEndsOnOneSideAreAmbiguous(@TempDir Path dir) throws Exception {
        Path run = dir.resolve("run");
        try (TcpQueues server = new TcpQueues(run.resolve("server"), RecordType.FORMAT_VERSION, 1, DOMAIN);
             TcpQueues a = new TcpQueues(run.resolve("a"), RecordType.FORMAT_VERSION, 2, DOMAIN);
             TcpQueues b = new TcpQueues(run.resolve("b"), RecordType.FORMAT_VERSION, 3, DOMAIN)) {
            // two processes claim the same local endpoint at once (e.g. one address in two networks)
            a.connection(1, "10.0.0.2:40555", "10.0.0.1:8080");
            b.connection(1, "10.0.0.2:40555", "10.0.0.1:8080");
            server.connection(1, "10.0.0.1:8080", "10.0.0.2:40555");
            a.thread(1).write(100, 1, 0, 0, 0).read(400, 1, 0, 0, 16).flush();
            b.thread(1).write(110, 1, 0, 0, 0).read(330, 1, 0, 0, 16).flush();
            server.thread(10).read(200, 1, 0, 0, 16).write(300, 1, 0, 0, 0).flush();
        }
        Matches m = consolidate(run, dir.resolve("profile"));
        assertEquals(List.of(), m.pairs().stream().map(p -> p[0] + "→" + p[1]).toList());
        assertEquals(new ProfileInfo.Tcp(0, 0, 3, 0, 0), m.info().messages().tcp());
    }

    /**
     * A write that sent nothing leaves its offset to the next write: a read ending in those bytes
     * may not be matched with either, and is counted; the reads before and after still match.
     */
    @Test
    void anOffsetWrittenTwiceConstrainsNothing(@TempDir Path dir) throws Exception {
        Path run = dir.resolve("run");
        try (TcpQueues server = new TcpQueues(run.resolve("server"), RecordType.FORMAT_VERSION, 1, DOMAIN);
             TcpQueues a = new TcpQueues(run.resolve("a"), RecordType.FORMAT_VERSION, 2, DOMAIN)) {
            a.connection(1, "127.0.0.2:40555", SERVER);
            server.connection(1, SERVER, "127.0.0.2:40555");
            a.thread(1).write(100, 1, 0, 0, 0).write(110, 1, 0, 0, 8).write(120, 1, 0, 0, 8).write(130, 1, 0, 0, 16)
                    .flush();
            server.thread(10).read(200, 1, 0, 0, 8).read(210, 1, 0, 0, 12).read(220, 1, 0, 0, 20).flush();
        }
        Matches m = consolidate(run, dir.resolve("profile"));
        ProfileInfo.Messages messages = m.info().messages();
        assertEquals(2, messages.matched(), "the reads ending at 8 and 20");
        assertEquals(new ProfileInfo.Tcp(1, 0, 0, 1, 1), messages.tcp());
        assertEquals(1, messages.ambiguousKeys());
        assertEquals(2, m.pairs().size(), "the profile's matcher drops the same read");
        assertTrue(m.info().problems().stream().anyMatch(p -> p.startsWith("TCP: 1 write offsets recorded twice")),
                m.info().problems()::toString);
    }

    /**
     * Ends in different clock domains cannot be ordered without the calibration: with several on a
     * side they stay ambiguous; one on each side is one connection.
     */
    @Test
    void severalEndsAcrossDomainsAreAmbiguousAndOneEachIsPaired(@TempDir Path dir) throws Exception {
        Path run = dir.resolve("run");
        try (TcpQueues server = new TcpQueues(run.resolve("server"), RecordType.FORMAT_VERSION, 1, "tsc@other");
             TcpQueues a = new TcpQueues(run.resolve("a"), RecordType.FORMAT_VERSION, 2, DOMAIN)) {
            a.connection(1, "10.0.0.2:40555", "10.0.0.1:8080");
            a.connection(2, "10.0.0.2:40555", "10.0.0.1:8080");
            a.connection(3, "10.0.0.2:40556", "10.0.0.1:8080");
            server.connection(1, "10.0.0.1:8080", "10.0.0.2:40555");
            server.connection(2, "10.0.0.1:8080", "10.0.0.2:40555");
            server.connection(3, "10.0.0.1:8080", "10.0.0.2:40556");
            server.connection(4, "10.0.0.1:8080", "10.0.0.9:40556");
            a.thread(1).write(100, 1, 0, 0, 0).write(1000, 2, 0, 0, 0).write(2000, 3, 0, 0, 0).flush();
            server.thread(10).read(200, 1, 0, 0, 16).read(1200, 2, 0, 0, 16).read(2200, 3, 0, 0, 16)
                    .read(2300, 4, 0, 0, 16).flush();
        }
        try (RunInventory inventory = RunInventory.scan(dev.dprof.consolidator.read.RunDirs.expand(List.of(run)))) {
            CausalIndex index = new CausalIndex(inventory);
            TcpFlows flows = index.tcpFlows();
            assertEquals(1, flows.paired());
            assertEquals(4, flows.ends(TcpFlows.State.AMBIGUOUS));
            assertEquals(1, flows.ends(TcpFlows.State.NO_PEER));
            assertEquals(1, index.matched().size(), "only the read of the paired connection");
            assertEquals(3, index.unmatchedReceives());
        }
    }

    /**
     * A process killed before its connection's record was written leaves events of a connection it
     * never described: they match nothing, even where its number equals a flow of the profile.
     */
    @Test
    void eventsOfAConnectionNeverDescribedMatchNothing(@TempDir Path dir) throws Exception {
        Path run = dir.resolve("run");
        try (TcpQueues server = new TcpQueues(run.resolve("server"), RecordType.FORMAT_VERSION, 1, DOMAIN);
             TcpQueues a = new TcpQueues(run.resolve("a"), RecordType.FORMAT_VERSION, 2, DOMAIN);
             TcpQueues b = new TcpQueues(run.resolve("b"), RecordType.FORMAT_VERSION, 3, DOMAIN)) {
            a.connection(1, "127.0.0.2:40555", SERVER);
            server.connection(1, SERVER, "127.0.0.2:40555");
            a.thread(1).write(100, 1, 0, 0, 0).read(400, 1, 0, 0, 16).flush();
            b.thread(1).write(150, 1, 0, 0, 0).write(160, 1, 0, 0, 8).read(170, 2, 0, 0, 16).flush();
            server.thread(10).read(200, 1, 0, 0, 16).write(300, 1, 0, 0, 0).flush();
        }
        Matches m = consolidate(run, dir.resolve("profile"));
        Map<Integer, Integer> peers = Map.of(stream(m.info(), 2, 1), stream(m.info(), 1, 10), stream(m.info(), 1, 10),
                stream(m.info(), 2, 1));
        assertEquals(2, m.pairs().size());
        assertEquals(0, m.pairs().stream().filter(p -> !peers.containsKey(p[1]) || peers.get(p[1]) != p[0]).count());
        assertEquals(new ProfileInfo.Tcp(1, 0, 0, 0, 0), m.info().messages().tcp());
        assertEquals(2, m.info().messages().unmatchedSends());
        assertEquals(1, m.info().messages().unmatchedReceives());
        assertTrue(m.info().problems().stream().anyMatch(p -> p.startsWith("TCP: 3 events of connections their"
                + " process did not describe")), m.info().problems()::toString);
    }
}
