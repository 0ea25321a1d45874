package dev.dprof.agent.bootstrap;

import java.nio.ByteBuffer;

/**
 * Receives the drained events of one thread's ring, batch by batch, from {@link Rings#drain}.
 *
 * <p>{@code slots} holds {@code count} slots of {@link Rings#SLOT_BYTES} bytes from index 0,
 * little endian: {@code [tick:int64][header:int32][cpu:int32][a:int64][b:int64]}. It is the
 * caller's scratch buffer, valid only during the call. {@code lostSoFar} is the ring's cumulative
 * count of dropped events. {@code threadEnded} is true on the ring's last batch (possibly with
 * {@code count == 0}); the ring is gone afterwards.
 */
public interface RingVisitor {
    void batch(long javaThreadId, ByteBuffer slots, int count, long lostSoFar, boolean threadEnded);
}
