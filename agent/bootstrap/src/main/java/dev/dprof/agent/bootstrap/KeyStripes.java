package dev.dprof.agent.bootstrap;

/**
 * Identity side tables split into stripes, each behind its own monitor, for the handoffs whose
 * objects are many and short-lived (fork/join tasks, waited futures): threads that hand off
 * different objects rarely meet on one lock. One channel serves all stripes; a key is the
 * stripe's own sequence number with the stripe in its low bits, so keys are unique in the channel
 * without a shared counter.
 *
 * <h2>Implementation notes</h2>
 * <ul>
 * <li>The stripe is picked from the object's identity hash; the entry inside it is still found by
 * reference ({@link IdentitySlots}), so equal hashes never merge two objects.</li>
 * <li>Allocation-free in steady state; the stripes' tables grow by doubling.</li>
 * </ul>
 */
final class KeyStripes {
    /** One stripe: a table, its next sequence number, and the size at which it next purges. */
    static final class Stripe {
        final IdentitySlots slots = new IdentitySlots(IdentitySlots.MIN_CAPACITY);
        final int index;
        long nextSeq = 1;
        int purgeAt;

        Stripe(int index, int purgeAt) {
            this.index = index;
            this.purgeAt = purgeAt;
        }

        /** A key unique in the channel: this stripe's next sequence number, with the stripe in the low bits. */
        long nextKey(int stripeBits) {
            return nextSeq++ << stripeBits | index;
        }
    }

    final int bits;
    private final Stripe[] stripes;

    KeyStripes(int bits, int purgeAt) {
        this.bits = bits;
        stripes = new Stripe[1 << bits];
        for (int i = 0; i < stripes.length; i++) {
            stripes[i] = new Stripe(i, purgeAt);
        }
    }

    Stripe of(Object key) {
        return stripes[(System.identityHashCode(key) * 0x9E3779B9 >>> 16) & (stripes.length - 1)];
    }
}
