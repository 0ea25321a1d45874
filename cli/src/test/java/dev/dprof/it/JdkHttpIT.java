package dev.dprof.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.it.ForkedJvm.Output;
import dev.dprof.it.ForkedJvm.Running;
import dev.dprof.it.app.JdkHttpApp;
import dev.dprof.testsupport.Jdks;
import dev.dprof.settings.DprofSettings;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * HTTP and HTTPS between JVMs ({@link JdkHttpApp}), with no configuration but the calibration: the
 * JDK's {@code HttpClient} speaks HTTP/1.1 to the JDK's {@code HttpServer} and {@code HttpsServer}, and
 * HTTP/2 (ALPN {@code h2}) to a Netty HTTP/2 server on the epoll transport, over TLS with a self-signed key this test
 * makes with {@code keytool} in its temporary folder. TLS sits above the probes: they count the
 * encrypted bytes of {@code SocketChannel} and of Netty's native socket, so the records, the
 * handshakes and the requests of every exchange pass {@link TcpTruthCheck} like plain TCP — the
 * three connections paired, every write matched by the reads that return its bytes, none left over, the
 * causal order true to the simulated clocks. The servers end first, without closing their
 * connections (a TLS close message nobody reads would be a write rightly left unmatched).
 */
class JdkHttpIT {
    private static final int REQUESTS = 30;

    @Test
    void httpHttpsAndHttp2OverTlsAreMatchedByBytes(@TempDir Path tmp) throws Exception {
        runAndCheck(tmp, Path.of(System.getProperty("java.home")), 443);
    }

    @Test
    void theSameOnJdk21OrLater(@TempDir Path tmp) throws Exception {
        runAndCheck(tmp, Jdks.modern(), 8443);
    }

    private static void runAndCheck(Path tmp, Path javaHome, long seed) throws Exception {
        String password = HexFormat.of().formatHex(SecureRandom.getInstanceStrong().generateSeed(12));
        Path keystore = tmp.resolve("it-key.p12");
        Process keytool = new ProcessBuilder(javaHome.resolve("bin/keytool").toString(), "-genkeypair",
                "-alias", "dprof-it", "-keyalg", "RSA", "-keysize", "2048", "-dname", "CN=127.0.0.1",
                "-ext", "SAN=IP:127.0.0.1", "-validity", "1", "-storetype", "PKCS12", "-keystore", keystore.toString(),
                "-storepass", password, "-keypass", password).redirectErrorStream(true).start();
        String keytoolOutput = new String(keytool.getInputStream().readAllBytes());
        assertEquals(0, keytool.waitFor(), keytoolOutput);

        Path out = tmp.resolve("out");
        Output jdk;
        Output h2;
        Output client;
        SimulatedMachines machines = SimulatedMachines.start(tmp, seed);
        try {
            Path config = ForkedJvm.config(tmp, machines.yaml("# TCP only: the agent records it without regions\n"));
            Running jdkServers = jvm(tmp, javaHome, config, out, machines).args("jdk-servers", keystore, password).start();
            Running h2Server = jvm(tmp, javaHome, config, out, machines).args("h2-server", keystore, password).start();
            String[] jdkPorts = jdkServers.awaitLine("listening ").split(" ");
            String h2Port = h2Server.awaitLine("listening ").substring("listening ".length());
            Running running = jvm(tmp, javaHome, config, out, machines)
                    .args("client", keystore, password, jdkPorts[1], jdkPorts[2], h2Port, REQUESTS).start();
            running.awaitLine("ready");
            for (Running server : List.of(jdkServers, h2Server)) {
                server.println("exit");
            }
            jdk = jdkServers.await();
            h2 = h2Server.await();
            running.println("exit");
            client = running.await();
        } finally {
            machines.close();
        }
        for (Output o : List.of(jdk, h2, client)) {
            assertEquals(0, o.exitCode(), o::toString);
        }
        assertTrue(client.stdout().containsAll(List.of("http HTTP_1_1 " + REQUESTS + " ok",
                "https HTTP_1_1 " + REQUESTS + " ok", "https HTTP_2 " + REQUESTS + " ok")), client::toString);

        Path profile = tmp.resolve("profile");
        ProfileInfo info = machines.consolidate(out, profile);
        TcpTruthCheck.assertMatched(profile, info, 3);
        // each exchange took at least a read at either end of its connection
        assertTrue(info.messages().matched() >= 6 * REQUESTS, () -> "matched reads: " + info.messages());
    }

    private static ForkedJvm jvm(Path tmp, Path javaHome, Path config, Path out, SimulatedMachines machines) {
        ForkedJvm jvm = ForkedJvm.app(JdkHttpApp.class, tmp).javaHome(javaHome).agent(config, out)
                .property(DprofSettings.SIM_CLOCK_PROPERTY, machines.nextClock());
        NettyIT.nettyJars().forEach(jvm::withClasspath);
        return jvm;
    }
}
