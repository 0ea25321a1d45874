package dev.dprof.calibrator.net;

import java.util.Objects;

/**
 * The four messages of the calibration protocol ({@code docs/CALIBRATION.md}). A node opens a
 * session with {@link Hello}, learns its parent's clock domain from {@link Welcome}, then measures
 * zeros with {@link Ping}/{@link Pong} round trips (DProf §3.2, Alg. 4, node-initiated).
 *
 * <p>Every message carries the node's random {@code session} and a {@code seq} that the node
 * never reuses within a session: a reply is paired with a request only when both match, which is
 * what keeps a late, duplicated or replayed reply from being paired with the wrong {@code k1}.
 */
public sealed interface Packet permits Packet.Hello, Packet.Welcome, Packet.Ping, Packet.Pong {
    /** The longest domain id a packet carries, in UTF-8 bytes. */
    int MAX_TEXT_BYTES = 512;

    long session();

    long seq();

    /** Node → parent: "I am {@code domainId}; who are you?" */
    record Hello(long session, long seq, String domainId) implements Packet {
        public Hello {
            Objects.requireNonNull(domainId, "domainId");
        }
    }

    /** Parent → node: the parent's clock domain, answering a {@link Hello}; the node's file names it as parent. */
    record Welcome(long session, long seq, String domainId) implements Packet {
        public Welcome {
            Objects.requireNonNull(domainId, "domainId");
        }
    }

    /** Node → parent: a round-trip request; the node read {@code k1} right before sending it. */
    record Ping(long session, long seq) implements Packet {
    }

    /**
     * Parent → node: the parent's tick {@code a}, read after the {@link Ping} arrived and before
     * this reply left, and the fingerprint of the parent's domain, so a node notices a parent that
     * changed domain under the same address.
     */
    record Pong(long session, long seq, long a, long domainFingerprint) implements Packet {
    }
}
