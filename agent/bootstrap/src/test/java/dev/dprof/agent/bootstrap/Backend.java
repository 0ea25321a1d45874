package dev.dprof.agent.bootstrap;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

/**
 * The two ring implementations behind one test face. Rings.NATIVE is fixed per JVM, so tests
 * call the per-backend entry points of Rings directly.
 */
enum Backend {
    NATIVE {
        @Override
        void configure(int clockMode, int ringEvents) {
            NativeRequired.assumeLoaded();
            NativeRing.configure(clockMode, ringEvents);
        }

        @Override
        int record(int variant, int header, long a, long b) {
            switch (variant) {
                case 0:
                    return Rings.nativeRecord(header);
                case 1:
                    return Rings.nativeRecord(header, a);
                default:
                    return Rings.nativeRecord(header, a, b);
            }
        }

        @Override
        void drain(RingVisitor v, ByteBuffer scratch) {
            Rings.drainNative(v, scratch);
        }

        /** The pthread runs its key destructors (THREAD_END, dead) a little after join returns. */
        @Override
        void awaitDeadWithoutDraining(long tid) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            long[] handles = new long[4096];
            while (System.nanoTime() < deadline) {
                int n = NativeRing.listRings(handles);
                for (int i = 0; i < n; i++) {
                    if (NativeRing.threadId(handles[i]) == tid && NativeRing.isDead(handles[i])) {
                        return;
                    }
                }
                Thread.sleep(1);
            }
            throw new AssertionError("ring of thread " + tid + " never marked dead");
        }
    },
    JAVA {
        @Override
        void configure(int clockMode, int ringEvents) {
            JavaRing.configure(ringEvents);
        }

        @Override
        int record(int variant, int header, long a, long b) {
            switch (variant) {
                case 0:
                    return Rings.javaRecord(header, 0, 0);
                case 1:
                    return Rings.javaRecord(header, a, 0);
                default:
                    return Rings.javaRecord(header, a, b);
            }
        }

        @Override
        void drain(RingVisitor v, ByteBuffer scratch) {
            Rings.drainJava(v, scratch);
        }
    };

    /** Clock mode and size of rings created from now on. */
    abstract void configure(int clockMode, int ringEvents);

    /** variant 0: record(h) (a = b = 0), 1: record(h, a) (b = 0), 2: record(h, a, b). */
    abstract int record(int variant, int header, long a, long b);

    abstract void drain(RingVisitor v, ByteBuffer scratch);

    /**
     * Waits until the ring of a joined thread has its final content, without consuming it (the
     * Java ring gets its THREAD_END from the next drain itself).
     */
    void awaitDeadWithoutDraining(long tid) throws InterruptedException {
    }
}
