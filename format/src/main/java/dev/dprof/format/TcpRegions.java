package dev.dprof.format;

/**
 * The regions the agent records for TCP connections without any configuration, and how their
 * payloads read: a write is a {@code SEND} stamped before its bytes leave, with
 * {@code a = flow} and {@code b = the stream offset of its first byte}; a read is a
 * {@code RECEIVE} stamped after its bytes arrived, with {@code a = flow} and
 * {@code b = the stream offset just past its last byte}. A read is matched with the write that
 * sent its last byte: the one with the largest start below its end.
 *
 * <p>The flow identifies one direction of one connection by its two ports
 * ({@link #flow(int, int)}), which both ends know without a system call.
 */
public final class TcpRegions {
    public static final String WRITE = "tcp.write";
    public static final String READ = "tcp.read";

    private TcpRegions() {
    }

    /** The key of the byte stream from the socket bound to {@code fromPort} to the one bound to {@code toPort}. */
    public static long flow(int fromPort, int toPort) {
        return 0x7C70_0000_0000_0000L | ((long) (fromPort & 0xFFFF) << 16) | (toPort & 0xFFFF);
    }
}
