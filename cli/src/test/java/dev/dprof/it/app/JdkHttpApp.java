package dev.dprof.it.app;

import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.DefaultHttp2WindowUpdateFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2FrameStream;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2SecurityUtil;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.SupportedCipherSuiteFilter;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * HTTP and HTTPS between JVMs with the JDK's own HTTP stack, each role a JVM of its own:
 * <ul>
 * <li>{@code jdk-servers KEYSTORE PASSWORD}: the JDK's {@code HttpServer} and {@code HttpsServer}
 * (HTTP/1.1, plain and over TLS), echoing the body POSTed to {@code /echo}; prints
 * {@code listening HTTP_PORT HTTPS_PORT};</li>
 * <li>{@code h2-server KEYSTORE PASSWORD}: an HTTP/2 server over TLS (ALPN {@code h2}) doing the same,
 * on Netty's native epoll transport with the JDK's TLS engine — the JDK has no HTTP/2 server;</li>
 * <li>{@code client KEYSTORE PASSWORD HTTP_PORT HTTPS_PORT H2_PORT REQUESTS}: the JDK's {@code HttpClient},
 * {@code REQUESTS} POSTs of bodies from empty to about 100 KB, one after the other, to each server:
 * HTTP/1.1 to the first two, HTTP/2 to the third (it fails if an exchange was not of its version);
 * prints {@code http HTTP_1_1 N ok}, {@code https HTTP_1_1 N ok} and {@code https HTTP_2 N ok}.</li>
 * </ul>
 * The keystore (PKCS12, a self-signed key for {@code 127.0.0.1}) is made by the test; the client
 * trusts exactly its certificate. The Netty server prints {@code listening PORT}; every role prints
 * {@code ready} when its work is done and exits on the line {@code exit} on stdin, without closing
 * its connections first, so that the JVMs end without TLS closing messages that nobody reads.
 */
public final class JdkHttpApp {
    private JdkHttpApp() {
    }

    public static void main(String[] args) throws Exception {
        SSLContext tls = tls(Path.of(args[1]), args[2].toCharArray());
        switch (args[0]) {
            case "jdk-servers" -> jdkServers(tls);
            case "h2-server" -> h2Server(Path.of(args[1]), args[2].toCharArray());
            default -> client(tls, Integer.parseInt(args[3]), Integer.parseInt(args[4]), Integer.parseInt(args[5]),
                    Integer.parseInt(args[6]));
        }
        System.out.println("ready");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = in.readLine(); line != null && !line.equals("exit"); line = in.readLine()) {
            // wait for the test's word
        }
        System.exit(0);
    }

    private static KeyStore keyStore(Path file, char[] password) throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (var in = Files.newInputStream(file)) {
            store.load(in, password);
        }
        return store;
    }

    private static KeyManagerFactory keys(Path file, char[] password) throws Exception {
        KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(keyStore(file, password), password);
        return keys;
    }

    /** Both ends' TLS: the key, and trust in its certificate only. */
    private static SSLContext tls(Path file, char[] password) throws Exception {
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(keyStore(file, password));
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(keys(file, password).getKeyManagers(), trust.getTrustManagers(), null);
        return tls;
    }

    private static void jdkServers(SSLContext tls) throws Exception {
        HttpHandler echo = exchange -> {
            byte[] body = exchange.getRequestBody().readAllBytes();
            exchange.sendResponseHeaders(200, body.length == 0 ? -1 : body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        };
        HttpServer http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        HttpsServer https = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        https.setHttpsConfigurator(new HttpsConfigurator(tls));
        for (HttpServer server : new HttpServer[] {http, https}) {
            server.createContext("/echo", echo);
            server.start();
        }
        System.out.println("listening " + http.getAddress().getPort() + " " + https.getAddress().getPort());
    }

    private static void h2Server(Path keystore, char[] password) throws Exception {
        Epoll.ensureAvailability();
        SslContext tls = SslContextBuilder.forServer(keys(keystore, password)).sslProvider(SslProvider.JDK)
                .ciphers(Http2SecurityUtil.CIPHERS, SupportedCipherSuiteFilter.INSTANCE)
                .applicationProtocolConfig(new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
                        ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                        ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
                        ApplicationProtocolNames.HTTP_2))
                .build();
        Channel listener = new ServerBootstrap().group(new EpollEventLoopGroup(1)).channel(EpollServerSocketChannel.class)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(tls.newHandler(ch.alloc()), Http2FrameCodecBuilder.forServer().build(),
                                new H2Echo());
                    }
                })
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
        System.out.println("listening " + ((InetSocketAddress) listener.localAddress()).getPort());
    }

    /** Echoes each stream's request body as its response, returning the flow-control window as it reads. */
    private static final class H2Echo extends ChannelDuplexHandler {
        private final Map<Http2FrameStream, CompositeByteBuf> bodies = new HashMap<>();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
            if (msg instanceof Http2HeadersFrame headers) {
                if (headers.isEndStream()) {
                    respond(ctx, headers.stream(), ctx.alloc().compositeBuffer());
                } else {
                    bodies.put(headers.stream(), ctx.alloc().compositeBuffer());
                }
            } else if (msg instanceof Http2DataFrame data) {
                CompositeByteBuf body = bodies.get(data.stream());
                int flowControlled = data.initialFlowControlledBytes();
                body.addComponent(true, data.content());
                if (flowControlled > 0) {
                    ctx.write(new DefaultHttp2WindowUpdateFrame(flowControlled).stream(data.stream()));
                }
                if (data.isEndStream()) {
                    respond(ctx, data.stream(), bodies.remove(data.stream()));
                }
            } else {
                super.channelRead(ctx, msg);
            }
        }

        private static void respond(ChannelHandlerContext ctx, Http2FrameStream stream, CompositeByteBuf body) {
            ctx.write(new DefaultHttp2HeadersFrame(new DefaultHttp2Headers().status("200")).stream(stream));
            ctx.write(new DefaultHttp2DataFrame(body, true).stream(stream));
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }
    }

    private static void client(SSLContext tls, int httpPort, int httpsPort, int h2Port, int requests) throws Exception {
        HttpClient client = HttpClient.newBuilder().sslContext(tls).build();
        exchange(client, "http", HttpClient.Version.HTTP_1_1, httpPort, requests);
        exchange(client, "https", HttpClient.Version.HTTP_1_1, httpsPort, requests);
        exchange(client, "https", HttpClient.Version.HTTP_2, h2Port, requests);
    }

    private static void exchange(HttpClient client, String scheme, HttpClient.Version version, int port, int requests)
            throws Exception {
        URI uri = URI.create(scheme + "://127.0.0.1:" + port + "/echo");
        for (int i = 0; i < requests; i++) {
            byte[] body = new byte[i * 5003 % 100_000];
            for (int j = 0; j < body.length; j++) {
                body[j] = (byte) (i + j * 7);
            }
            HttpResponse<byte[]> response = client.send(HttpRequest.newBuilder(uri).version(version)
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofByteArray());
            if (response.statusCode() != 200 || response.version() != version || !Arrays.equals(body, response.body())) {
                throw new IllegalStateException("request " + i + ": " + response + ", " + response.body().length
                        + " bytes back of " + body.length);
            }
        }
        System.out.println(scheme + " " + version + " " + requests + " ok");
    }
}
