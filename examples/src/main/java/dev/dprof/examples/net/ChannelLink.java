package dev.dprof.examples.net;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/** A {@link Link} over a blocking NIO {@code SocketChannel}. */
public final class ChannelLink implements Link {
    private final SocketChannel channel;
    private final ByteBuffer sendHeader = Message.newHeader();
    private final ByteBuffer receiveHeader = Message.newHeader();
    private final ByteBuffer[] gather = new ByteBuffer[2];
    private final ByteBuffer intBuffer = ByteBuffer.allocate(Integer.BYTES);

    public ChannelLink(SocketChannel channel) throws IOException {
        if (!channel.isBlocking()) {
            throw new IllegalArgumentException("a ChannelLink needs a blocking channel");
        }
        this.channel = channel;
        channel.socket().setTcpNoDelay(true);
    }

    @Override
    public void send(Message message) throws IOException {
        message.header(sendHeader);
        gather[0] = sendHeader;
        gather[1] = message.payload();
        // one gathering write usually takes both; a large payload may need several calls
        while (gather[1].hasRemaining() || gather[0].hasRemaining()) {
            channel.write(gather);
        }
        gather[1] = null;
    }

    @Override
    public void receive(Message into) throws IOException {
        receiveHeader.clear();
        if (channel.read(receiveHeader) < 0) {
            throw new EOFException("connection closed by " + channel.getRemoteAddress());
        }
        readFully(receiveHeader);
        int length = into.readHeader(receiveHeader);
        readFully(ByteBuffer.wrap(into.resize(length), 0, length));
    }

    @Override
    public void sendInt(int value) throws IOException {
        intBuffer.clear();
        intBuffer.putInt(value).flip();
        while (intBuffer.hasRemaining()) {
            channel.write(intBuffer);
        }
    }

    @Override
    public int receiveInt() throws IOException {
        intBuffer.clear();
        readFully(intBuffer);
        return intBuffer.getInt(0);
    }

    private void readFully(ByteBuffer buffer) throws IOException {
        while (buffer.hasRemaining()) {
            if (channel.read(buffer) < 0) {
                throw new EOFException("connection closed mid-message by " + channel.getRemoteAddress());
            }
        }
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }

    @Override
    public String toString() {
        return "ChannelLink[" + channel.socket().getLocalPort() + " -> "
                + channel.socket().getRemoteSocketAddress() + "]";
    }
}
