package dev.dprof.format;

import java.util.Arrays;

/**
 * One TCP connection as one end saw it (docs/FORMAT.md, "{@code C} TCP connection"): the number its
 * {@code tcp.write} and {@code tcp.read} events carry as their first payload ({@link TcpRegions}),
 * both endpoints, and the network the addresses belong to. The consolidator pairs the two ends of a
 * connection by these ({@code TcpFlows}); a connection's epoch — which of several connections that
 * used the same addresses and ports over time it was — is told apart by the process and this number
 * at each end, and the pairing says when it cannot tell.
 *
 * @param connection    the process's number of this connection, from 1
 * @param localAddress  the local IP address, 4 or 16 bytes (an IPv4-mapped IPv6 address is stored as IPv4);
 *                      empty when the agent could not learn it
 * @param remoteAddress the peer's IP address, likewise
 * @param scope         the network namespace the process lives in ({@code <boot id>/net:[inode]}, or
 *                      {@code host:<name>} where the kernel does not say): a loopback address means
 *                      something only within one
 */
public record TcpConnection(long connection, byte[] localAddress, int localPort, byte[] remoteAddress, int remotePort,
                            String scope) {

    public TcpConnection {
        localAddress = canonical(localAddress);
        remoteAddress = canonical(remoteAddress);
    }

    /** An IPv4-mapped IPv6 address ({@code ::ffff:a.b.c.d}) as its IPv4 address; others as they are. */
    static byte[] canonical(byte[] address) {
        if (address.length == 16) {
            for (int i = 0; i < 10; i++) {
                if (address[i] != 0) {
                    return address.clone();
                }
            }
            if (address[10] == (byte) 0xFF && address[11] == (byte) 0xFF) {
                return Arrays.copyOfRange(address, 12, 16);
            }
        }
        return address.clone();
    }

    /** Whether {@code address} is a loopback address ({@code 127.0.0.0/8}, {@code ::1}), local to its namespace. */
    public static boolean isLoopback(byte[] address) {
        if (address.length == 4) {
            return address[0] == 127;
        }
        if (address.length == 16) {
            for (int i = 0; i < 15; i++) {
                if (address[i] != 0) {
                    return false;
                }
            }
            return address[15] == 1;
        }
        return false;
    }

    public void encode(ByteSink out) {
        encode(out, connection, localAddress, localPort, remoteAddress, remotePort, scope);
    }

    /** Encodes without making a record (the agent's drainer). */
    public static void encode(ByteSink out, long connection, byte[] localAddress, int localPort, byte[] remoteAddress,
                              int remotePort, String scope) {
        out.writeByte(RecordType.CONNECTION);
        out.writeVarLong(connection);
        writeAddress(out, localAddress);
        out.writeVarLong(localPort);
        writeAddress(out, remoteAddress);
        out.writeVarLong(remotePort);
        out.writeString(scope);
    }

    private static void writeAddress(ByteSink out, byte[] address) {
        out.writeVarLong(address.length);
        for (byte b : address) {
            out.writeByte(b);
        }
    }

    public static TcpConnection decode(ByteSource in) throws FormatException {
        long connection = in.readVarLong("connection");
        byte[] local = readAddress(in, "local address");
        int localPort = in.readVarInt("local port", 0xFFFF);
        byte[] remote = readAddress(in, "remote address");
        int remotePort = in.readVarInt("remote port", 0xFFFF);
        return new TcpConnection(connection, local, localPort, remote, remotePort, in.readString("scope"));
    }

    private static byte[] readAddress(ByteSource in, String what) throws FormatException {
        int length = in.readVarInt(what + " length", 16);
        if (length != 0 && length != 4 && length != 16) {
            throw new FormatException(what + " of " + length + " bytes (4 or 16 expected)");
        }
        byte[] address = new byte[length];
        for (int i = 0; i < length; i++) {
            address[i] = (byte) in.readByte(what);
        }
        return address;
    }

    /** {@code address:port} for people: dotted IPv4, IPv6 in hex groups, {@code ?} when unknown. */
    public static String endpoint(byte[] address, int port) {
        if (address.length == 4) {
            return (address[0] & 0xFF) + "." + (address[1] & 0xFF) + "." + (address[2] & 0xFF) + "."
                    + (address[3] & 0xFF) + ":" + port;
        }
        if (address.length == 16) {
            StringBuilder s = new StringBuilder("[");
            for (int i = 0; i < 16; i += 2) {
                s.append(i == 0 ? "" : ":").append(Integer.toHexString((address[i] & 0xFF) << 8 | address[i + 1] & 0xFF));
            }
            return s.append("]:").append(port).toString();
        }
        return "?:" + port;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TcpConnection c && connection == c.connection && localPort == c.localPort
                && remotePort == c.remotePort && Arrays.equals(localAddress, c.localAddress)
                && Arrays.equals(remoteAddress, c.remoteAddress) && scope.equals(c.scope);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(connection) * 31 + Arrays.hashCode(localAddress) * 17 + localPort;
    }

    @Override
    public String toString() {
        return "connection " + connection + " " + endpoint(localAddress, localPort) + " → "
                + endpoint(remoteAddress, remotePort);
    }
}
