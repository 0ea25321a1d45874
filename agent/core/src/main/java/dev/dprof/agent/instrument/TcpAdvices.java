package dev.dprof.agent.instrument;

import dev.dprof.agent.bootstrap.TcpProbes;
import java.net.InetAddress;
import java.net.SocketAddress;
import net.bytebuddy.asm.Advice;

/**
 * Advice for the JDK's TCP implementations ({@link TcpProbes} says what is recorded and why it
 * matches without configuration): {@code sun.nio.ch.NioSocketImpl} behind
 * {@code java.net.Socket} streams, and {@code sun.nio.ch.SocketChannelImpl} for NIO channels. Each
 * passes what identifies the connection — the ports and the peer's address from the socket's
 * fields ({@code SocketImpl.localport}, {@code port}, {@code address}), a channel's two addresses —
 * and the probe asks for more only at the connection's first I/O.
 */
final class TcpAdvices {
    static final String SOCKET_IMPL = "sun.nio.ch.NioSocketImpl";
    static final String CHANNEL_IMPL = "sun.nio.ch.SocketChannelImpl";

    private TcpAdvices() {
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
}
