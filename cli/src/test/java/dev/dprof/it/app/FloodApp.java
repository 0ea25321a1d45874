package dev.dprof.it.app;

import java.util.concurrent.locks.LockSupport;

/**
 * {@code FloodApp CALLS}: thread {@code flood} calls the send region {@link #send} {@code CALLS}
 * times with keys spread over the whole 64-bit range, so every event costs about twenty bytes on
 * disk and a small disk fills up; it pauses a little every 4096 calls so the drainer keeps up
 * and the loss is the disk's, not the per-thread buffer's. Prints {@code sent …} at the end.
 */
public final class FloodApp {
    private FloodApp() {
    }

    public static void main(String[] args) throws InterruptedException {
        long calls = Long.parseLong(args[0]);
        long[] sum = new long[1];
        Thread t = new Thread(() -> {
            long key = 0x9E3779B97F4A7C15L;
            for (long i = 0; i < calls; i++) {
                key = key * 6364136223846793005L + 1442695040888963407L;
                sum[0] += send(key);
                if ((i & 4095) == 0) {
                    LockSupport.parkNanos(200_000);
                }
            }
        }, "flood");
        t.start();
        t.join();
        System.out.println("sent " + calls + " (" + Long.toHexString(sum[0]) + ")");
    }

    /** YAML: send, channel flood, key {arg: 0}. */
    static long send(long key) {
        return key >>> 60;
    }
}
