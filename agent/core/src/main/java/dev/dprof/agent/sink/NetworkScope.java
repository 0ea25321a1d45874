package dev.dprof.agent.sink;

import dev.dprof.clock.ClockDomain;
import dev.dprof.clock.HostName;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Names the network namespace this process lives in, for its TCP connection records
 * (docs/FORMAT.md, "{@code C} TCP connection"): a loopback address names an endpoint only within
 * one namespace, and two containers of one machine each have their own {@code 127.0.0.1}. The name
 * is the machine's boot id and the namespace's inode ({@code /proc/self/ns/net}), unique on the
 * machine while it runs; where the kernel does not say, the host name, which at least keeps two
 * machines apart.
 */
final class NetworkScope {
    private static final Path NAMESPACE = Path.of("/proc/self/ns/net");

    private NetworkScope() {
    }

    static String current() {
        try {
            return ClockDomain.bootId() + "/" + Files.readSymbolicLink(NAMESPACE);
        } catch (Exception e) {
            return "host:" + HostName.get();
        }
    }
}
