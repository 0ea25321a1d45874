package dev.dprof.calibrator.net;

/**
 * A datagram that is not a valid calibration packet. Receivers count it by {@link #reason()} and
 * drop it: garbage on the port must never stop a server or be paired with a request.
 */
public final class MalformedPacketException extends Exception {
    private static final long serialVersionUID = 1L;

    /** Why a datagram was rejected; the order is the order of the checks. */
    public enum Reason {
        /** Shorter than its header, its type's body, or its tag. */
        TRUNCATED,
        /** Not the protocol's magic number: not ours at all. */
        MAGIC,
        /** Ours, but a protocol version this build does not speak. */
        VERSION,
        /** An unknown message type, unknown flag bits or a non-zero reserved field. */
        HEADER,
        /** Tag missing, unexpected or wrong: forged, or the two sides use different keys. */
        AUTH,
        /** The body does not have its type's layout (length, text encoding, padding). */
        BODY
    }

    private final Reason reason;

    public MalformedPacketException(Reason reason, String detail) {
        super(reason + ": " + detail, null, false, false);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }
}
