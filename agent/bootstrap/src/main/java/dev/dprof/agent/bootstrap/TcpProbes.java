package dev.dprof.agent.bootstrap;

import java.lang.ref.WeakReference;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.SocketOptions;
import java.nio.channels.SocketChannel;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Probes woven into the JDK's TCP socket implementations and into Netty's native transport (its
 * {@code io.netty.channel.unix} descriptors, which the epoll transport reads and writes without any
 * JDK channel), so that messages are matched without any configuration: every write is a send
 * stamped before its bytes leave, every read a receive stamped after its bytes arrived, keyed by the
 * connection and byte offsets (layout in {@code dev.dprof.format.TcpRegions}: a = the process's
 * number of the connection, b = the write's first offset / the read's end offset). The first write
 * or read of a connection numbers it and notes its two endpoints, which the drainer writes as a
 * connection record before any batch holding its events ({@link #drainOpened}); the consolidator
 * pairs the two ends of a connection by those.
 *
 * <h2>Implementation notes</h2>
 * <ul>
 * <li>The connections live in a weak map keyed by the socket implementation object; a lookup per
 * I/O call costs far less than the system call it accompanies. Only a connection's first I/O
 * allocates (its entry, its addresses) and, for {@code java.net.Socket}, asks the socket its local
 * address (one system call): the socket implementation keeps the local port but not the address.</li>
 * <li>Neither JDK class overrides {@code equals}, but Netty's {@code FileDescriptor} compares by
 * descriptor number, which the kernel reuses once a socket is closed: an entry counts only for the
 * object that made it (its weakly held owner), and a new socket on a reused number replaces a closed
 * one's entry.</li>
 * <li>A Netty descriptor is described at its first I/O through Netty's public {@code Socket}
 * methods, by reflection (the agent does not depend on Netty): {@code getIntOpt(SOL_SOCKET,
 * SO_PROTOCOL)} tells TCP from UDP and Unix domain sockets (Linux constants: the epoll transport
 * runs only there), {@code localAddress()}/{@code remoteAddress()} give the endpoints. A descriptor
 * that is not TCP keeps an entry numbered 0 and records nothing. Netty reads and writes a channel
 * on its event loop's one thread, so its offsets follow the byte order.</li>
 * <li>A connection is numbered and queued for the drainer under the map's lock, before the map
 * shows it to any other thread: whichever thread records its first event, the record is queued
 * before that event is in a ring.</li>
 * <li>{@code NioSocketImpl.implWrite/implRead} run under the socket's write/read lock, so offsets
 * follow the byte order. {@code SocketChannelImpl.write/read} take their lock inside; there the
 * advice runs outside it and concurrent writers to one channel could interleave their offsets —
 * one writer per channel is assumed, and an offset two writes claim is dropped by the consolidator.</li>
 * <li>A write that sent nothing (a non-blocking socket's full buffer, a failed call) leaves the
 * offset where it was, and the next write would record a second send at it, which the consolidator
 * must drop as ambiguous: that write records none, and the first stamp stands for the bytes sent
 * from the offset, which it precedes too (sound; earlier than the bytes by the wait for the buffer).</li>
 * </ul>
 */
public final class TcpProbes {
    private static final Map<Object, Connection> CONNECTIONS = Collections.synchronizedMap(new WeakHashMap<>());
    /** Connections numbered since the drainer's last look, to be described in the queue. */
    private static final ConcurrentLinkedQueue<Connection> OPENED = new ConcurrentLinkedQueue<>();
    private static final AtomicLong NUMBERS = new AtomicLong();
    private static final byte[] UNKNOWN = new byte[0];
    /** Linux's {@code SOL_SOCKET}, {@code SO_PROTOCOL} and {@code IPPROTO_TCP} (asm-generic/socket.h, netinet/in.h). */
    private static final int SOL_SOCKET = 1;
    private static final int SO_PROTOCOL = 38;
    private static final int IPPROTO_TCP = 6;
    private static volatile int writeRegion;
    private static volatile int readRegion;

    private TcpProbes() {
    }

    /**
     * One connection of this process: its number, its endpoints, and the bytes written and read so
     * far; number 0 for a Netty descriptor that is not a TCP connection.
     */
    public static final class Connection {
        public final long number;
        /** The socket object the entry was made for: a map key equal to it but not it is another socket. */
        final WeakReference<Object> owner;
        public final byte[] localAddress;
        public final int localPort;
        public final byte[] remoteAddress;
        public final int remotePort;
        long written;
        long read;
        /** The offset of the last send recorded, -1 before the first. */
        long stamped = -1;

        Connection(long number, Object owner, byte[] localAddress, int localPort, byte[] remoteAddress,
                   int remotePort) {
            this.number = number;
            this.owner = new WeakReference<>(owner);
            this.localAddress = localAddress;
            this.localPort = localPort;
            this.remoteAddress = remoteAddress;
            this.remotePort = remotePort;
        }
    }

    /** Installs the region ids of {@code tcp.write} and {@code tcp.read}. */
    public static void regions(int write, int read) {
        writeRegion = write;
        readRegion = read;
    }

    /** Hands every connection numbered since the last call to {@code describe}, in the order numbered. */
    public static void drainOpened(Consumer<Connection> describe) {
        for (Connection c = OPENED.poll(); c != null; c = OPENED.poll()) {
            describe.accept(c);
        }
    }

    /**
     * The connection of {@code key}, numbered now if this is its first I/O; null when it is not an
     * IP connection (yet): no port, or no peer.
     */
    private static Connection connection(Object key, Object socket, InetAddress local, int localPort,
                                         InetAddress remote, int remotePort) {
        Connection c = known(key);
        if (c != null || localPort <= 0 || remotePort <= 0 || remote == null) {
            return c;
        }
        byte[] localBytes = local != null ? local.getAddress() : localAddressOf(socket);
        return add(key, localBytes, localPort, remote.getAddress(), remotePort);
    }

    /** The entry made for {@code key} itself, or null (none, or one of another object equal to it). */
    private static Connection known(Object key) {
        Connection c = CONNECTIONS.get(key);
        return c != null && c.owner.get() == key ? c : null;
    }

    /** Numbers {@code key}'s connection (0: not TCP) unless another thread just did. */
    private static Connection add(Object key, byte[] localAddress, int localPort, byte[] remoteAddress,
                                  int remotePort) {
        synchronized (CONNECTIONS) {
            Connection c = known(key);
            if (c == null) {
                boolean tcp = remoteAddress != null;
                c = new Connection(tcp ? NUMBERS.incrementAndGet() : 0, key, tcp ? localAddress : UNKNOWN, localPort,
                        tcp ? remoteAddress : UNKNOWN, remotePort);
                if (tcp) {
                    OPENED.add(c);
                }
                // an equal key of a closed socket (a reused descriptor number) keeps its own entry otherwise
                CONNECTIONS.remove(key);
                CONNECTIONS.put(key, c);
            }
            return c;
        }
    }

    /**
     * The connection of a Netty descriptor ({@code io.netty.channel.unix.FileDescriptor} or a
     * subclass), described at its first I/O; null when it is not a TCP connection or has no peer yet.
     */
    private static Connection nativeConnection(Object descriptor) {
        Connection c = known(descriptor);
        if (c == null) {
            c = describeNative(descriptor);
        }
        return c == null || c.number == 0 ? null : c;
    }

    private static Connection describeNative(Object descriptor) {
        try {
            Class<?> type = descriptor.getClass();
            Method option = type.getMethod("getIntOpt", int.class, int.class);
            if (!Integer.valueOf(IPPROTO_TCP).equals(option.invoke(descriptor, SOL_SOCKET, SO_PROTOCOL))) {
                return add(descriptor, null, 0, null, 0);
            }
            Object local = type.getMethod("localAddress").invoke(descriptor);
            Object remote = type.getMethod("remoteAddress").invoke(descriptor);
            if (!(remote instanceof InetSocketAddress r) || r.getAddress() == null || r.getPort() <= 0
                    || !(local instanceof InetSocketAddress l) || l.getPort() <= 0) {
                return null;
            }
            byte[] localBytes = l.getAddress() != null ? l.getAddress().getAddress() : UNKNOWN;
            return add(descriptor, localBytes, l.getPort(), r.getAddress().getAddress(), r.getPort());
        } catch (ReflectiveOperationException | RuntimeException e) {
            // not a socket (a pipe, a file), or closed meanwhile: nothing to match
            return add(descriptor, null, 0, null, 0);
        }
    }

    /** A {@code java.net.Socket} implementation's local address, or none when it cannot say (closed). */
    private static byte[] localAddressOf(Object socket) {
        try {
            if (socket instanceof SocketOptions options
                    && options.getOption(SocketOptions.SO_BINDADDR) instanceof InetAddress address) {
                return address.getAddress();
            }
        } catch (Exception e) {
            // a socket closed meanwhile: its connection is described without its local address
        }
        return UNKNOWN;
    }

    /** Before a write on a {@code java.net.Socket} (its {@code NioSocketImpl}). */
    public static void beforeSocketWrite(Object impl, int localPort, InetAddress remote, int remotePort) {
        Connection c = connection(impl, impl, null, localPort, remote, remotePort);
        if (c != null) {
            sending(c);
        }
    }

    /** After a read on a {@code java.net.Socket} that returned {@code read} bytes. */
    public static void afterSocketRead(Object impl, long read, int localPort, InetAddress remote, int remotePort) {
        if (read > 0) {
            received(connection(impl, impl, null, localPort, remote, remotePort), read);
        }
    }

    /** Before a write on a {@code SocketChannel}. */
    public static void beforeChannelWrite(Object channel, SocketAddress local, SocketAddress remote) {
        if (local instanceof InetSocketAddress l && remote instanceof InetSocketAddress r) {
            Connection c = connection(channel, channel, l.getAddress(), l.getPort(), r.getAddress(), r.getPort());
            if (c != null) {
                sending(c);
            }
        }
    }

    /** After a read on a {@code SocketChannel} that returned {@code read} bytes. */
    public static void afterChannelRead(Object channel, long read, SocketAddress local, SocketAddress remote) {
        if (read > 0 && local instanceof InetSocketAddress l && remote instanceof InetSocketAddress r) {
            received(connection(channel, channel, l.getAddress(), l.getPort(), r.getAddress(), r.getPort()), read);
        }
    }

    /** Before a write on a Netty descriptor (epoll transport): {@code write*}, {@code send*}, {@code sendFile}. */
    public static void beforeNativeWrite(Object descriptor) {
        Connection c = nativeConnection(descriptor);
        if (c != null) {
            sending(c);
        }
    }

    /**
     * Before {@code FileChannel.transferTo}: when its target is a connected {@code SocketChannel},
     * a send at the connection's next offset, which is returned (-1 for any other target). The JDK
     * sends the file with {@code sendfile} on the socket's descriptor, without the channel's write.
     */
    public static long beforeTransfer(Object target) {
        if (!(target instanceof SocketChannel channel)) {
            return -1;
        }
        Connection c = known(channel);
        if (c == null) {
            try {
                if (channel.getLocalAddress() instanceof InetSocketAddress l
                        && channel.getRemoteAddress() instanceof InetSocketAddress r) {
                    c = connection(channel, channel, l.getAddress(), l.getPort(), r.getAddress(), r.getPort());
                }
            } catch (java.io.IOException e) {
                // closed: the transfer fails too, and sends nothing
            }
        }
        if (c == null) {
            return -1;
        }
        sending(c);
        return c.written;
    }

    /**
     * After {@code FileChannel.transferTo} sent {@code transferred} bytes from offset {@code before}:
     * where the JDK fell back to the channel's own writes, those counted the bytes already.
     */
    public static void afterTransfer(Object target, long before, long transferred) {
        if (before >= 0 && transferred > 0) {
            Connection c = known(target);
            if (c != null && c.written < before + transferred) {
                c.written = before + transferred;
            }
        }
    }

    /** After a read on a Netty descriptor that returned {@code read} bytes (-1 at the end of the stream). */
    public static void afterNativeRead(Object descriptor, long read) {
        if (read > 0) {
            received(nativeConnection(descriptor), read);
        }
    }

    /** A send at the connection's next offset, unless one was recorded there already (a write that sent nothing). */
    private static void sending(Connection c) {
        long offset = c.written;
        if (offset != c.stamped) {
            c.stamped = offset;
            Probes.send(writeRegion, c.number, offset);
        }
    }

    private static void received(Connection c, long read) {
        if (c != null) {
            c.read += read;
            Probes.receive(readRegion, c.number, c.read);
        }
    }

    /** After a write (socket or channel) that put {@code written} bytes on the wire. */
    public static void afterWrite(Object connection, long written) {
        if (written > 0) {
            Connection c = known(connection);
            if (c != null) {
                c.written += written;
            }
        }
    }
}
