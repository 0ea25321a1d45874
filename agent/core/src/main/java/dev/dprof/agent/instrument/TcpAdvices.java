package dev.dprof.agent.instrument;

import dev.dprof.agent.bootstrap.TcpProbes;
import java.net.InetAddress;
import java.net.SocketAddress;
import java.util.List;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.implementation.bytecode.StackManipulation;
import net.bytebuddy.matcher.ElementMatcher;
import net.bytebuddy.matcher.ElementMatchers;

/**
 * Advice for the JDK's TCP implementations ({@link TcpProbes} says what is recorded and why it
 * matches without configuration): {@code sun.nio.ch.NioSocketImpl} behind
 * {@code java.net.Socket} streams, and {@code sun.nio.ch.SocketChannelImpl} for NIO channels. Each
 * passes what identifies the connection — the ports and the peer's address from the socket's
 * fields ({@code SocketImpl.localport}, {@code port}, {@code address}), a channel's two addresses —
 * and the probe asks for more only at the connection's first I/O.
 *
 * <p>Netty's NIO transport, the JDK's {@code HttpClient} and {@code HttpServer} (HTTP/1.1 and
 * HTTP/2, with or without TLS: the bytes are counted below the TLS engine) all read and write
 * through {@code SocketChannelImpl}. Netty's native epoll transport does not: its channels call the
 * public I/O methods of {@code io.netty.channel.unix.FileDescriptor} and {@code Socket} (a read or
 * write of one buffer, of a memory address, a gathering write) and {@code LinuxSocket.sendFile},
 * which are woven by name, also where an application shades Netty under a prefix of its own
 * ({@code <prefix>.io.netty.…}). Not woven: {@code splice} between sockets and TCP Fast Open's data
 * sent with the connect (both off by default). {@code FileChannelImpl.transferTo} a socket channel
 * (Netty's {@code FileRegion} on the NIO transport, any NIO file server) sends with
 * {@code sendfile}, without the channel's write: woven too, and its other methods stay free for the
 * YAML's regions.
 */
final class TcpAdvices {
    static final String SOCKET_IMPL = "sun.nio.ch.NioSocketImpl";
    static final String CHANNEL_IMPL = "sun.nio.ch.SocketChannelImpl";
    /** Its {@code transferTo} a socket: {@code sendfile}, without {@code SocketChannelImpl.write}. */
    static final String FILE_CHANNEL_IMPL = "sun.nio.ch.FileChannelImpl";
    static final String NETTY_DESCRIPTOR = "io.netty.channel.unix.FileDescriptor";
    static final String NETTY_SOCKET = "io.netty.channel.unix.Socket";
    static final String NETTY_EPOLL_SOCKET = "io.netty.channel.epoll.LinuxSocket";
    /** Where the TCP regions are recorded, as their location says. */
    static final String LOCATION = SOCKET_IMPL + ", " + CHANNEL_IMPL + ", " + FILE_CHANNEL_IMPL + "#transferTo, "
            + NETTY_DESCRIPTOR + ", " + NETTY_SOCKET + ", " + NETTY_EPOLL_SOCKET;
    private static final List<String> NETTY = List.of(NETTY_DESCRIPTOR, NETTY_SOCKET, NETTY_EPOLL_SOCKET);

    private TcpAdvices() {
    }

    /** Whether the class {@code name} is one of the JDK's or Netty's TCP implementations that are woven. */
    static boolean weaves(String name) {
        return name.equals(SOCKET_IMPL) || name.equals(CHANNEL_IMPL) || name.equals(FILE_CHANNEL_IMPL)
                || nettyClass(name) != null;
    }

    /** Which of Netty's native classes {@code name} is, also shaded under a prefix; null for none. */
    static String nettyClass(String name) {
        if (name.endsWith("Socket") || name.endsWith("FileDescriptor")) {
            for (String netty : NETTY) {
                if (name.endsWith(netty) && (name.length() == netty.length()
                        || name.charAt(name.length() - netty.length() - 1) == '.')) {
                    return netty;
                }
            }
        }
        return null;
    }

    /** Weaves one of Netty's native classes ({@link #nettyClass}'s answer): its reads and its writes. */
    static DynamicType.Builder<?> weaveNetty(DynamicType.Builder<?> builder, String netty,
                                             StackManipulation adviceFailed) {
        ElementMatcher.Junction<MethodDescription> writes = switch (netty) {
            case NETTY_DESCRIPTOR -> ElementMatchers.namedOneOf("write", "writeAddress", "writev", "writevAddresses");
            case NETTY_SOCKET -> ElementMatchers.namedOneOf("send", "sendAddress");
            default -> ElementMatchers.named("sendFile");
        };
        ElementMatcher.Junction<MethodDescription> reads = switch (netty) {
            case NETTY_DESCRIPTOR -> ElementMatchers.namedOneOf("read", "readAddress");
            case NETTY_SOCKET -> ElementMatchers.namedOneOf("recv", "recvAddress");
            default -> ElementMatchers.none();
        };
        // the instance methods only: each calls a private static native of the same name
        ElementMatcher.Junction<MethodDescription> io = ElementMatchers.not(ElementMatchers.isStatic())
                .and(ElementMatchers.not(ElementMatchers.isNative()));
        return builder
                .visit(Advice.to(NativeWrite.class).withExceptionHandler(adviceFailed).on(io.and(writes)))
                .visit(Advice.to(NativeRead.class).withExceptionHandler(adviceFailed).on(io.and(reads)));
    }

    /** {@code NioSocketImpl.implWrite(byte[], int, int)}: under the write lock. */
    static final class SocketWrite {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static void enter(@Advice.This Object self, @Advice.FieldValue("localport") int local,
                          @Advice.FieldValue("address") InetAddress remoteAddress,
                          @Advice.FieldValue("port") int remote) {
            TcpProbes.beforeSocketWrite(self, local, remoteAddress, remote);
        }

        @Advice.OnMethodExit(suppress = Throwable.class)
        static void exit(@Advice.This Object self, @Advice.Return long written) {
            TcpProbes.afterWrite(self, written);
        }
    }

    /** {@code NioSocketImpl.implRead(byte[], int, int[, long])}: under the read lock. */
    static final class SocketRead {
        @Advice.OnMethodExit(suppress = Throwable.class)
        static void exit(@Advice.This Object self, @Advice.Return long read, @Advice.FieldValue("localport") int local,
                         @Advice.FieldValue("address") InetAddress remoteAddress,
                         @Advice.FieldValue("port") int remote) {
            TcpProbes.afterSocketRead(self, read, local, remoteAddress, remote);
        }
    }

    /** {@code SocketChannelImpl.write(ByteBuffer)} and its gathering form. */
    static final class ChannelWrite {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static void enter(@Advice.This Object self, @Advice.FieldValue("localAddress") SocketAddress local,
                          @Advice.FieldValue("remoteAddress") SocketAddress remote) {
            TcpProbes.beforeChannelWrite(self, local, remote);
        }

        @Advice.OnMethodExit(suppress = Throwable.class)
        static void exit(@Advice.This Object self, @Advice.Return long written) {
            TcpProbes.afterWrite(self, written);
        }
    }

    /** {@code SocketChannelImpl.read(ByteBuffer)} and its scattering form. */
    static final class ChannelRead {
        @Advice.OnMethodExit(suppress = Throwable.class)
        static void exit(@Advice.This Object self, @Advice.Return long read,
                         @Advice.FieldValue("localAddress") SocketAddress local,
                         @Advice.FieldValue("remoteAddress") SocketAddress remote) {
            TcpProbes.afterChannelRead(self, read, local, remote);
        }
    }

    /** Netty's native writes ({@code FileDescriptor.write*}, {@code Socket.send*}, {@code LinuxSocket.sendFile}). */
    static final class NativeWrite {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static void enter(@Advice.This Object self) {
            TcpProbes.beforeNativeWrite(self);
        }

        @Advice.OnMethodExit(suppress = Throwable.class)
        static void exit(@Advice.This Object self, @Advice.Return long written) {
            TcpProbes.afterWrite(self, written);
        }
    }

    /** Netty's native reads ({@code FileDescriptor.read*}, {@code Socket.recv*}). */
    static final class NativeRead {
        @Advice.OnMethodExit(suppress = Throwable.class)
        static void exit(@Advice.This Object self, @Advice.Return long read) {
            TcpProbes.afterNativeRead(self, read);
        }
    }

    /** {@code FileChannelImpl.transferTo(long, long, WritableByteChannel)}. */
    static final class Transfer {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static long enter(@Advice.Argument(2) Object target) {
            return TcpProbes.beforeTransfer(target);
        }

        @Advice.OnMethodExit(suppress = Throwable.class)
        static void exit(@Advice.Argument(2) Object target, @Advice.Enter long before,
                         @Advice.Return long transferred) {
            TcpProbes.afterTransfer(target, before, transferred);
        }
    }
}
