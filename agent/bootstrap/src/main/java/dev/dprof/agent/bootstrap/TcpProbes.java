package dev.dprof.agent.bootstrap;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * Probes woven into the JDK's TCP socket implementations, so that messages are matched without
 * any configuration: every write is a send stamped before its bytes leave, every read a receive
 * stamped after its bytes arrived, keyed by the connection's direction and byte offsets (layout in
 * {@code dev.dprof.format.TcpRegions}: a = flow, b = the write's first offset / the read's end
 * offset).
 *
 * <h2>Implementation notes</h2>
 * <ul>
 * <li>The byte offsets live in a weak identity map keyed by the socket implementation object
 * (neither JDK class overrides {@code equals}); a lookup per I/O call costs far less than the
 * system call it accompanies.</li>
 * <li>{@code NioSocketImpl.implWrite/implRead} run under the socket's write/read lock, so offsets
 * follow the byte order. {@code SocketChannelImpl.write/read} take their lock inside; there the
 * advice runs outside it and concurrent writers to one channel could interleave their offsets —
 * one writer per channel is assumed.</li>
 * <li>The flow is derived from the two ports only, which both ends know without a system call;
 * it must equal {@code TcpRegions.flow} (constants only here: the format module is not on the
 * bootstrap class path).</li>
 * </ul>
 */
public final class TcpProbes {
    private static final Map<Object, long[]> OFFSETS = Collections.synchronizedMap(new WeakHashMap<>());
    private static volatile int writeRegion;
    private static volatile int readRegion;

    private TcpProbes() {
    }

    /** Installs the region ids of {@code tcp.write} and {@code tcp.read}. */
    public static void regions(int write, int read) {
        writeRegion = write;
        readRegion = read;
    }

    public static long flow(int fromPort, int toPort) {
        return 0x7C70_0000_0000_0000L | ((long) (fromPort & 0xFFFF) << 16) | (toPort & 0xFFFF);
    }

    private static long[] offsets(Object connection) {
        long[] o = OFFSETS.get(connection);
        if (o == null) {
            o = new long[2];
            OFFSETS.put(connection, o);
        }
        return o;
    }

    /** Before a write on a socket bound to {@code localPort} connected to {@code remotePort}. */
    public static void beforeWrite(Object connection, int localPort, int remotePort) {
        if (localPort > 0 && remotePort > 0) {
            Probes.send(writeRegion, flow(localPort, remotePort), offsets(connection)[0]);
        }
    }

    /** After a write that put {@code written} bytes on the wire. */
    public static void afterWrite(Object connection, long written) {
        if (written > 0) {
            offsets(connection)[0] += written;
        }
    }

    /** After a read that returned {@code read} bytes. */
    public static void afterRead(Object connection, long read, int localPort, int remotePort) {
        if (read > 0 && localPort > 0 && remotePort > 0) {
            long[] o = offsets(connection);
            o[1] += read;
            Probes.receive(readRegion, flow(remotePort, localPort), o[1]);
        }
    }

    /** The port of a channel's address, or 0 when it is not an IP socket (yet). */
    public static int port(SocketAddress address) {
        return address instanceof InetSocketAddress inet ? inet.getPort() : 0;
    }
}
