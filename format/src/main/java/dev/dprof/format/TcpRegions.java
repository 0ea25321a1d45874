package dev.dprof.format;

/**
 * The regions the agent records for TCP connections without any configuration, and how their
 * payloads read: a write is a {@code SEND} stamped before its bytes leave, with
 * {@code a = connection} and {@code b = the stream offset of its first byte}; a read is a
 * {@code RECEIVE} stamped after its bytes arrived, with {@code a = connection} and
 * {@code b = the stream offset just past its last byte}. A read is matched with the write that
 * sent its last byte: the one with the largest start below its end.
 *
 * <p>The connection is the process's number of it, which a {@link TcpConnection} record describes
 * (both endpoints, the network namespace): the consolidator pairs the two ends by those and gives
 * each direction of a paired connection one flow, which is what {@code a} holds in a consolidated
 * profile. Queues before format version {@link RecordType#TCP_CONNECTIONS_VERSION} carry
 * {@link #legacyFlow} instead: one direction keyed by its two ports only, which two connections of
 * different hosts, or two over time, can share.
 */
public final class TcpRegions {
    public static final String WRITE = "tcp.write";
    public static final String READ = "tcp.read";
    /** The tag of a {@link #legacyFlow}. */
    private static final long LEGACY_TAG = 0x7C70_0000_0000_0000L;

    private TcpRegions() {
    }

    /**
     * The flow of a queue before version 3: the byte stream from the socket bound to {@code fromPort}
     * to the one bound to {@code toPort}.
     */
    public static long legacyFlow(int fromPort, int toPort) {
        return LEGACY_TAG | ((long) (fromPort & 0xFFFF) << 16) | (toPort & 0xFFFF);
    }

    /** The sending port of a {@link #legacyFlow}. */
    public static int legacyFromPort(long flow) {
        return (int) (flow >>> 16) & 0xFFFF;
    }

    /** The receiving port of a {@link #legacyFlow}. */
    public static int legacyToPort(long flow) {
        return (int) flow & 0xFFFF;
    }
}
