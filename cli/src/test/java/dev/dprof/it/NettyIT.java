package dev.dprof.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.it.ForkedJvm.Output;
import dev.dprof.it.ForkedJvm.Running;
import dev.dprof.it.app.NettyEchoApp;
import dev.dprof.testsupport.Jdks;
import dev.dprof.settings.DprofSettings;
import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Netty echo cluster ({@link NettyEchoApp}) with no configuration but the calibration: a server on
 * Netty's native epoll transport, which reads and writes without any JDK channel, and two clients,
 * one on epoll and one on the NIO transport, each JVM with the real agent jar and a simulated clock
 * of its own. Netty is on the applications' class path only, never in the agent jar. The profile
 * passes {@link TcpTruthCheck}: both connections paired, every write matched by the reads that
 * return its bytes and none left over, the causal order true to the simulated clocks' truth; and
 * each flow carried exactly the bytes the client sent, which came back unchanged (also those sent
 * from a file with {@code sendfile}).
 */
class NettyIT {
    private static final int ROUNDS = 40;

    @Test
    void anEpollEchoClusterIsMatchedByBytes(@TempDir Path tmp) throws Exception {
        runAndCheck(tmp, Path.of(System.getProperty("java.home")), 18);
    }

    @Test
    void theSameOnJdk21OrLater(@TempDir Path tmp) throws Exception {
        runAndCheck(tmp, Jdks.modern(), 25);
    }

    private static void runAndCheck(Path tmp, Path javaHome, long seed) throws Exception {
        Path out = tmp.resolve("out");
        List<Output> clients = new ArrayList<>();
        Output server;
        SimulatedMachines machines = SimulatedMachines.start(tmp, seed);
        try {
            Path config = ForkedJvm.config(tmp, machines.yaml("# TCP only: the agent records it without regions\n"));
            Running running = jvm(tmp, javaHome, config, out, machines).args("server", "epoll", 2).start();
            String port = running.awaitLine("listening ").substring("listening ".length());
            List<Running> started = new ArrayList<>();
            for (String transport : List.of("epoll", "nio")) {
                started.add(jvm(tmp, javaHome, config, out, machines).args("client", transport, port, ROUNDS).start());
            }
            for (Running client : started) {
                clients.add(client.await());
            }
            server = running.await();
        } finally {
            machines.close();
        }
        long sent = 0;
        List<Long> expected = new ArrayList<>();
        for (Output client : clients) {
            assertEquals(0, client.exitCode(), client::toString);
            String sentLine = line(client, "sent ");
            assertEquals(sentLine.replace("sent ", "received "), line(client, "received "), client::toString);
            long bytes = Long.parseLong(sentLine.split(" ")[1]);
            sent += bytes;
            // the client's bytes to the server, and the same bytes back
            expected.add(bytes);
            expected.add(bytes);
        }
        assertEquals(0, server.exitCode(), server::toString);
        assertEquals("echoed " + sent, line(server, "echoed "), server::toString);

        Path profile = tmp.resolve("profile");
        ProfileInfo info = machines.consolidate(out, profile);
        Map<Long, Long> readPerFlow = TcpTruthCheck.assertMatched(profile, info, 2);
        assertEquals(expected.stream().sorted().toList(), readPerFlow.values().stream().sorted().toList(),
                "every byte each flow carried was read, and no more");
    }

    private static ForkedJvm jvm(Path tmp, Path javaHome, Path config, Path out, SimulatedMachines machines) {
        ForkedJvm jvm = ForkedJvm.app(NettyEchoApp.class, tmp).javaHome(javaHome).agent(config, out)
                .property(DprofSettings.SIM_CLOCK_PROPERTY, machines.nextClock());
        nettyJars().forEach(jvm::withClasspath);
        return jvm;
    }

    private static String line(Output output, String prefix) {
        return output.stdout().stream().filter(l -> l.startsWith(prefix)).findFirst()
                .orElseThrow(() -> new AssertionError("no line '" + prefix + "…'\n" + output));
    }

    /** Netty's jars from this JVM's (the test scope's) class path, the native epoll library's included. */
    static List<String> nettyJars() {
        String path = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> jars = Stream.of(path.split(File.pathSeparator))
                .filter(e -> e.replace(File.separatorChar, '/').contains("/io/netty/"))
                .filter(e -> !e.contains("netty-tcnative")) // TLS here is the JDK's own
                .collect(Collectors.toList());
        if (jars.stream().noneMatch(j -> j.contains("netty-transport-native-epoll") && j.contains("linux-x86_64"))) {
            fail("Netty's native epoll transport is not on the test class path: " + path);
        }
        return jars;
    }
}
