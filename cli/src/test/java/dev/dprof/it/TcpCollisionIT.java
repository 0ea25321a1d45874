package dev.dprof.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.consolidator.analysis.messages.MessageMatcher;
import dev.dprof.consolidator.consolidate.Consolidator;
import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.format.EventKind;
import dev.dprof.format.profile.ProfileEvent;
import dev.dprof.format.profile.ProfileEventsReader;
import dev.dprof.it.app.TcpPeersApp;
import dev.dprof.testsupport.Jdks;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two client JVMs on different loopback addresses, {@code 127.0.0.2} and {@code 127.0.0.3}, bound to
 * the same local port towards one server JVM — one through {@code java.net.Socket}, one through a
 * {@code SocketChannel} — and the first reconnecting from the same address and port once the
 * server closed its first connection: five connection ends on two 4-tuples, one of them used twice.
 * Keyed by ports, as the agent's flows were before format version 3, all of them were one flow. With
 * the real agent jar and the consolidator, every TCP read is matched with a write of its own
 * connection: the server serves each connection on a thread named after the client's address and
 * the connection's rank, the client makes each on a thread {@code client-<rank>}, so the truth of
 * every match is known, and none is wrong.
 */
class TcpCollisionIT {
    private static final int ROUNDS = 20;

    @Test
    void clientsOnOnePortOfTwoAddressesMatchOnlyTheirOwnConnections(@TempDir Path tmp) throws Exception {
        runAndCheck(tmp, Path.of(System.getProperty("java.home")));
    }

    @Test
    void theSameOnJdk21OrLater(@TempDir Path tmp) throws Exception {
        runAndCheck(tmp, Jdks.modern());
    }

    private static void runAndCheck(Path tmp, Path javaHome) throws Exception {
        Path out = tmp.resolve("out");
        Path config = ForkedJvm.config(tmp, "# TCP only: the agent records it without regions\n");
        int port = freePort();
        ForkedJvm.Running server = ForkedJvm.app(TcpPeersApp.class, tmp).javaHome(javaHome).agent(config, out).args("server", 3, ROUNDS)
                .start();
        int serverPort = Integer.parseInt(server.awaitLine("listening ").substring("listening ".length()));
        ForkedJvm.Running a = ForkedJvm.app(TcpPeersApp.class, tmp).javaHome(javaHome).agent(config, out)
                .args("client", "127.0.0.2", port, serverPort, 2, ROUNDS, "socket").start();
        ForkedJvm.Running b = ForkedJvm.app(TcpPeersApp.class, tmp).javaHome(javaHome).agent(config, out)
                .args("client", "127.0.0.3", port, serverPort, 1, ROUNDS, "channel").start();
        for (ForkedJvm.Running client : List.of(a, b)) {
            ForkedJvm.Output o = client.await();
            assertEquals(0, o.exitCode(), o::toString);
            assertEquals(List.of("done"), o.stdout(), o::toString);
        }
        ForkedJvm.Output s = server.await();
        assertEquals(0, s.exitCode(), s::toString);

        Path profile = tmp.resolve("profile");
        ProfileInfo info = Consolidator.run(new Consolidator.Options(List.of(out), List.of(), profile,
                Consolidator.Sync.NONE, null, Optional.empty()), n -> { });
        assertEquals(new ProfileInfo.Tcp(3, 0, 0, 0, 0), info.messages().tcp(), () -> info.problems().toString());

        // the true peer of each stream: client A's k-th connection is served by serve-127.0.0.2-k
        Map<Integer, Integer> peer = new HashMap<>();
        for (int k = 1; k <= 2; k++) {
            link(peer, stream(info, a.pid(), "client-" + k), stream(info, server.pid(), "serve-127.0.0.2-" + k));
        }
        link(peer, stream(info, b.pid(), "client-1"), stream(info, server.pid(), "serve-127.0.0.3-1"));

        MessageMatcher<Integer> matcher = new MessageMatcher<>(info);
        List<String> wrong = new ArrayList<>();
        Map<Integer, Integer> matchedReadsOf = new HashMap<>();
        long reads = 0;
        try (ProfileEventsReader events = Profile.open(profile).events()) {
            ProfileEvent e = new ProfileEvent();
            while (events.next(e)) {
                if (e.kind == EventKind.SEND) {
                    matcher.send(e, e.stream);
                } else if (e.kind == EventKind.RECEIVE) {
                    reads++;
                    Integer writer = matcher.receive(e);
                    if (writer == null) {
                        continue;
                    }
                    matchedReadsOf.merge(e.stream, 1, Integer::sum);
                    if (!writer.equals(peer.get(e.stream))) {
                        wrong.add(info.streams().get(writer).name() + " → " + info.streams().get(e.stream).name());
                    }
                }
            }
        }
        assertEquals(List.of(), wrong, "reads matched with another connection's write");
        assertEquals(reads, matchedReadsOf.values().stream().mapToLong(Integer::longValue).sum(),
                () -> "every read matched; by stream: " + matchedReadsOf);
        for (int stream : peer.keySet()) {
            assertTrue(matchedReadsOf.getOrDefault(stream, 0) >= 1, () -> "no matched read on stream " + stream);
        }
        assertEquals(0, info.causalityConflicts());
        assertEquals(reads, info.messages().matched(), "the consolidator matched the same reads");
    }

    private static void link(Map<Integer, Integer> peer, int x, int y) {
        peer.put(x, y);
        peer.put(y, x);
    }

    private static int stream(ProfileInfo info, long pid, String thread) {
        int process = info.processes().stream().filter(p -> p.pid() == pid).findFirst().orElseThrow().index();
        return info.streams().stream().filter(s -> s.process() == process && s.name().equals(thread)).findFirst()
                .orElseThrow(() -> new AssertionError("no thread " + thread + " in process " + pid)).index();
    }

    /** A port free on both client addresses (the loopback network routes all of 127/8 here). */
    private static int freePort() throws Exception {
        try (ServerSocket probe = new ServerSocket()) {
            probe.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.2"), 0));
            return probe.getLocalPort();
        }
    }
}
