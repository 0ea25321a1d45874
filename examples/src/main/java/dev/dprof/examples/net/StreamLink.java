package dev.dprof.examples.net;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;

/** A {@link Link} over the streams of a {@code java.net.Socket}. */
public final class StreamLink implements Link {
    private static final int BUFFER = 1 << 16;

    private final Socket socket;
    private final DataInputStream in;
    private final DataOutputStream out;
    private final ByteBuffer sendHeader = Message.newHeader();
    private final ByteBuffer receiveHeader = Message.newHeader();

    public StreamLink(Socket socket) throws IOException {
        this.socket = socket;
        // small messages (a barrier, a request) must leave at once, not wait for Nagle
        socket.setTcpNoDelay(true);
        this.in = new DataInputStream(new BufferedInputStream(socket.getInputStream(), BUFFER));
        this.out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream(), BUFFER));
    }

    @Override
    public void send(Message message) throws IOException {
        message.header(sendHeader);
        out.write(sendHeader.array(), 0, Message.HEADER_BYTES);
        out.write(message.payload().array(), 0, message.length());
        out.flush();
    }

    @Override
    public void receive(Message into) throws IOException {
        int first = in.read();
        if (first < 0) {
            throw new EOFException("connection closed by " + socket.getRemoteSocketAddress());
        }
        byte[] header = receiveHeader.array();
        header[0] = (byte) first;
        in.readFully(header, 1, Message.HEADER_BYTES - 1);
        int length = into.readHeader(receiveHeader);
        in.readFully(into.resize(length), 0, length);
    }

    @Override
    public void sendInt(int value) throws IOException {
        out.writeInt(value);
        out.flush();
    }

    @Override
    public int receiveInt() throws IOException {
        return in.readInt();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }

    @Override
    public String toString() {
        return "StreamLink[" + socket.getLocalPort() + " -> " + socket.getRemoteSocketAddress() + "]";
    }
}
