package dev.dprof.it.app;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code FloodApp DIR BELOW_BYTES AFTER_CALLS}: thread {@code flood} calls the send region
 * {@link #send} with keys spread over the whole 64-bit range, so every call costs about thirty
 * bytes on disk, until the file system of {@code DIR} has less than {@code BELOW_BYTES} free;
 * then it makes {@code AFTER_CALLS} more calls and main prints {@code sent}. It pauses for a
 * millisecond every 2048 calls, so the drainer mostly keeps up; whether it does or not, the disk
 * fills, since the application waits for that rather than for a number of calls.
 */
public final class FloodApp {
    private static final long GIVE_UP_NANOS = TimeUnit.SECONDS.toNanos(60);

    private FloodApp() {
    }

    public static void main(String[] args) throws Exception {
        FileStore store = Files.getFileStore(Path.of(args[0]));
        long below = Long.parseLong(args[1]);
        long after = Long.parseLong(args[2]);
        long[] sum = new long[1];
        boolean[] filled = new boolean[1];
        Thread t = new Thread(() -> {
            long key = 0x9E3779B97F4A7C15L;
            long deadline = System.nanoTime() + GIVE_UP_NANOS;
            try {
                while (store.getUsableSpace() >= below && System.nanoTime() < deadline) {
                    for (int i = 0; i < 2048; i++) {
                        key = key * 6364136223846793005L + 1442695040888963407L;
                        sum[0] += send(key);
                    }
                    LockSupport.parkNanos(1_000_000);
                }
                filled[0] = store.getUsableSpace() < below;
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
            for (long i = 0; i < after; i++) {
                key = key * 6364136223846793005L + 1442695040888963407L;
                sum[0] += send(key);
            }
        }, "flood");
        t.start();
        t.join();
        System.out.println(filled[0] ? "sent" : "the disk did not fill within a minute");
    }

    /** YAML: send, channel flood, key {arg: 0}. */
    static long send(long key) {
        return key >>> 60;
    }
}
