package dev.dprof.format.calibration;

/**
 * One causal round trip between a node and its parent (DProf Alg. 4, node-initiated): the node
 * read {@code k1} on its clock before sending, the parent read {@code a} on its clock after the
 * request arrived and before replying, the node read {@code k2} after the reply arrived. So in
 * real time {@code k1 < a < k2}: the parent's tick {@code a} is trapped between two node ticks.
 *
 * @param epoch the calibration burst this round trip was the tightest of
 */
public record Zero(int epoch, long k1, long a, long k2) {
    public Zero {
        if (k2 < k1) {
            throw new IllegalArgumentException("k2 < k1 in a zero: " + k1 + " > " + k2);
        }
    }

    /** The width of the trap in node ticks: the round trip time. */
    public long widthTicks() {
        return k2 - k1;
    }
}
