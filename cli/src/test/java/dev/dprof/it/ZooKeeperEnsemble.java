package dev.dprof.it;

import static org.junit.jupiter.api.Assertions.fail;

import dev.dprof.it.ForkedJvm.Output;
import dev.dprof.it.ForkedJvm.Running;
import dev.dprof.it.app.ZooKeeperLoad;
import dev.dprof.settings.DprofSettings;
import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.zookeeper.server.quorum.QuorumPeerMain;

/**
 * An unmodified Apache ZooKeeper ensemble of three servers ({@code QuorumPeerMain}, one JVM each,
 * loopback ports) and its load client ({@link ZooKeeperLoad}, a JVM of its own), every JVM with
 * the agent and its own simulated clock. Data directories are under the run's folder, on the
 * disk (a tmpfs would make the transaction log's fsync free).
 *
 * <p>{@code zookeeper.forceSync} is ZooKeeper's own switch: {@code no} skips the
 * {@code FileChannel.force} of the transaction log in {@code FileTxnLog.commit}, the stage the
 * what-if cuts. The JVMs run the serial collector in 256 MiB heaps, so that four JVMs on a
 * two-core machine do not also run each one's parallel GC threads.
 */
final class ZooKeeperEnsemble implements AutoCloseable {
    static final int SERVERS = 3;
    private static final List<String> JVM_OPTIONS = List.of("-Xmx256m", "-XX:+UseSerialGC");

    private final List<Running> servers;
    private final int[] clientPorts;

    private ZooKeeperEnsemble(List<Running> servers, int[] clientPorts) {
        this.servers = servers;
        this.clientPorts = clientPorts;
    }

    /**
     * Starts the three servers.
     *
     * @param dir       the run's folder: the servers' configuration, data and output
     * @param yaml      the agent's configuration
     * @param out       the agent's output directory (one queue per process under it)
     * @param sims      the servers' simulated clocks, {@code SimulatedClock} specs, one per server
     * @param forceSync ZooKeeper's {@code zookeeper.forceSync}
     * @param tickMs    ZooKeeper's {@code tickTime}: the leader pings its followers every half tick
     */
    static ZooKeeperEnsemble start(Path dir, Path yaml, Path out, List<String> sims, boolean forceSync, int tickMs)
            throws IOException {
        int[] ports = freePorts(3 * SERVERS);
        int[] clientPorts = new int[SERVERS];
        StringBuilder peers = new StringBuilder();
        for (int i = 0; i < SERVERS; i++) {
            clientPorts[i] = ports[3 * i];
            peers.append("server.").append(i + 1).append("=127.0.0.1:").append(ports[3 * i + 1]).append(':')
                    .append(ports[3 * i + 2]).append('\n');
        }
        List<Running> servers = new ArrayList<>();
        try {
            for (int i = 0; i < SERVERS; i++) {
                Path home = Files.createDirectories(dir.resolve("zk-" + (i + 1)));
                Path data = Files.createDirectories(home.resolve("data"));
                Files.writeString(data.resolve("myid"), Integer.toString(i + 1));
                // initLimit and syncLimit in ticks: even at a 500 ms tick, a follower's 20 s to sync and
                // 10 s to answer survive a loaded machine
                Path cfg = Files.writeString(home.resolve("zoo.cfg"), "tickTime=" + tickMs + "\ninitLimit=40\nsyncLimit=20\n"
                        + "dataDir=" + data.toAbsolutePath() + "\nclientPort=" + clientPorts[i]
                        + "\nclientPortAddress=127.0.0.1\nadmin.enableServer=false\n" + peers);
                ForkedJvm jvm = ForkedJvm.app(QuorumPeerMain.class, home).agent(yaml, out)
                        .property(DprofSettings.SIM_CLOCK_PROPERTY, sims.get(i))
                        .property("zookeeper.forceSync", forceSync ? "yes" : "no")
                        .property("zookeeper.jmx.log4j.disable", true)
                        .property("org.slf4j.simpleLogger.defaultLogLevel", "warn")
                        .args(cfg.toAbsolutePath());
                JVM_OPTIONS.forEach(jvm::option);
                classpath().forEach(jvm::withClasspath);
                servers.add(jvm.start());
            }
        } catch (IOException | RuntimeException e) {
            new ZooKeeperEnsemble(servers, clientPorts).close();
            throw e;
        }
        return new ZooKeeperEnsemble(servers, clientPorts);
    }

    /** The client connection string of server {@code i} (0-based). */
    String connect(int i) {
        return "127.0.0.1:" + clientPorts[i];
    }

    /**
     * Runs the load client against server {@code server} and returns what it printed, with the
     * scheduler statistics of every server thread at the span's start and end
     * ({@link dev.dprof.it.app.ThreadSchedStats}).
     */
    Output load(Path dir, Path yaml, Path out, String sim, int server, int writes, int lanes, int warmup)
            throws IOException, InterruptedException {
        ForkedJvm jvm = ForkedJvm.app(ZooKeeperLoad.class, dir).agent(yaml, out)
                .property(DprofSettings.SIM_CLOCK_PROPERTY, sim)
                .property("org.slf4j.simpleLogger.defaultLogLevel", "warn")
                .args(connect(server), writes, lanes, warmup,
                        servers.stream().map(s -> Long.toString(s.pid())).collect(Collectors.joining(",")));
        JVM_OPTIONS.forEach(jvm::option);
        classpath().forEach(jvm::withClasspath);
        Running client = jvm.start();
        // a server that died (a port taken, a class missing) would leave the client retrying for a minute
        while (client.alive()) {
            for (int i = 0; i < servers.size(); i++) {
                if (!servers.get(i).alive()) {
                    client.kill();
                    fail("ZooKeeper server " + (i + 1) + " ended during the load\n" + servers.get(i).await());
                }
            }
            Thread.sleep(100);
        }
        return client.await();
    }

    /** Stops every server with SIGTERM, so that each agent writes its end; returns their outputs. */
    @Override
    public void close() {
        List<String> failures = new ArrayList<>();
        for (Running server : servers) {
            try {
                server.terminate();
            } catch (IOException | InterruptedException | AssertionError e) {
                failures.add(e.toString());
            }
        }
        if (!failures.isEmpty()) {
            fail("ZooKeeper servers did not stop: " + failures);
        }
    }

    /**
     * ZooKeeper and its runtime dependencies from this JVM's class path (the test scope's), and
     * SLF4J's simple binding for its log: nothing of dprof's own.
     */
    static List<String> classpath() {
        String path = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> jars = Stream.of(path.split(File.pathSeparator))
                .map(e -> e.replace(File.separatorChar, '/'))
                .filter(e -> Stream.of("/org/apache/zookeeper/", "/io/netty/", "/io/dropwizard/", "/org/xerial/snappy/",
                        "/org/apache/yetus/", "/org/slf4j/", "/commons-io/").anyMatch(e::contains))
                .filter(e -> !e.contains("/netty-tcnative")) // TLS only; the ensemble speaks plain TCP
                .collect(Collectors.toList());
        if (jars.stream().noneMatch(j -> j.contains("zookeeper-3"))) {
            fail("ZooKeeper is not on the test class path: " + path);
        }
        return jars;
    }

    private static int[] freePorts(int n) throws IOException {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            int[] ports = new int[n];
            for (int i = 0; i < n; i++) {
                ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                sockets.add(s);
                ports[i] = s.getLocalPort();
            }
            return ports;
        } finally {
            for (ServerSocket s : sockets) {
                s.close();
            }
        }
    }
}
