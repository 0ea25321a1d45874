package dev.dprof.it.app;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.DefaultFileRegion;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32;

/**
 * A Netty echo cluster, each member a JVM of its own, on Netty's native epoll transport or its NIO
 * transport (Netty on the test class path only: the agent weaves its classes by name):
 * <ul>
 * <li>{@code server epoll|nio CONNECTIONS}: listens on {@code 127.0.0.1} (prints
 * {@code listening PORT}), writes back every buffer it reads, flushing at the end of each read
 * burst, and after {@code CONNECTIONS} connections closed prints {@code echoed BYTES};</li>
 * <li>{@code client epoll|nio PORT ROUNDS}: one connection; each round writes a header and a payload
 * of a size that varies from 1 byte to about 200 KB (two buffers in one flush: a gathering write,
 * and a message longer than a socket buffer: partial writes and reads) and waits for their echo
 * before the next; every tenth payload is sent from a file ({@code DefaultFileRegion}: {@code sendfile},
 * through {@code LinuxSocket.sendFile} on epoll, {@code FileChannel.transferTo} on NIO); prints
 * {@code sent BYTES crc CRC} and {@code received BYTES crc CRC}.</li>
 * </ul>
 * The epoll transport is required where asked for: without it the run fails rather than falling
 * back to NIO.
 */
public final class NettyEchoApp {
    private NettyEchoApp() {
    }

    public static void main(String[] args) throws Exception {
        boolean epoll = args[1].equals("epoll");
        if (epoll) {
            Epoll.ensureAvailability();
        }
        EventLoopGroup group = epoll ? new EpollEventLoopGroup(1) : new NioEventLoopGroup(1);
        try {
            if (args[0].equals("server")) {
                server(group, epoll, Integer.parseInt(args[2]));
            } else {
                client(group, epoll, Integer.parseInt(args[2]), Integer.parseInt(args[3]));
            }
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    private static void server(EventLoopGroup group, boolean epoll, int connections) throws Exception {
        CountDownLatch closed = new CountDownLatch(connections);
        AtomicLong echoed = new AtomicLong();
        Class<? extends ServerChannel> type = epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
        Channel listener = new ServerBootstrap().group(group).channel(type)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                            @Override
                            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                echoed.addAndGet(((ByteBuf) msg).readableBytes());
                                ctx.write(msg);
                            }

                            @Override
                            public void channelReadComplete(ChannelHandlerContext ctx) {
                                ctx.flush();
                            }

                            @Override
                            public void channelInactive(ChannelHandlerContext ctx) {
                                closed.countDown();
                            }
                        });
                    }
                })
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
        System.out.println("listening " + ((InetSocketAddress) listener.localAddress()).getPort());
        if (!closed.await(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the clients did not close their connections");
        }
        listener.close().sync();
        System.out.println("echoed " + echoed.get());
    }

    private static void client(EventLoopGroup group, boolean epoll, int port, int rounds) throws Exception {
        CRC32 receivedCrc = new CRC32();
        AtomicLong received = new AtomicLong();
        Object echo = new Object();
        Channel channel = new Bootstrap().group(group)
                .channel(epoll ? EpollSocketChannel.class : NioSocketChannel.class)
                .handler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ByteBuf buf = (ByteBuf) msg;
                        try {
                            byte[] bytes = new byte[buf.readableBytes()];
                            buf.readBytes(bytes);
                            synchronized (echo) {
                                receivedCrc.update(bytes);
                                received.addAndGet(bytes.length);
                                echo.notifyAll();
                            }
                        } finally {
                            buf.release();
                        }
                    }
                })
                .connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port)).sync().channel();
        CRC32 sentCrc = new CRC32();
        long sent = 0;
        // in the working directory, which the test makes its own temporary directory
        Path file = Files.createTempFile(Path.of("").toAbsolutePath(), "netty-echo-", ".bin");
        for (int round = 0; round < rounds; round++) {
            byte[] payload = new byte[1 + round * 7919 % 200_000];
            for (int i = 0; i < payload.length; i++) {
                payload[i] = (byte) (round * 31 + i);
            }
            ByteBuf header = channel.alloc().buffer(8).writeInt(round).writeInt(payload.length);
            byte[] headerBytes = new byte[8];
            header.getBytes(0, headerBytes);
            sentCrc.update(headerBytes);
            sentCrc.update(payload);
            sent += headerBytes.length + payload.length;
            channel.write(header);
            if (round % 10 == 9) {
                Files.write(file, payload);
                channel.writeAndFlush(new DefaultFileRegion(file.toFile(), 0, payload.length)).sync();
            } else {
                channel.writeAndFlush(channel.alloc().buffer(payload.length).writeBytes(payload));
            }
            synchronized (echo) {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (received.get() < sent) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        throw new IllegalStateException("no echo of round " + round);
                    }
                    echo.wait(TimeUnit.NANOSECONDS.toMillis(left) + 1);
                }
            }
        }
        channel.close().sync();
        Files.delete(file);
        System.out.println("sent " + sent + " crc " + sentCrc.getValue());
        synchronized (echo) {
            System.out.println("received " + received.get() + " crc " + receivedCrc.getValue());
        }
    }
}
