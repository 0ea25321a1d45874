package dev.dprof.agent.bootstrap.bootcheck;

import dev.dprof.format.EventCodes;

import dev.dprof.agent.bootstrap.RingConfig;
import dev.dprof.agent.bootstrap.Rings;
import java.nio.ByteBuffer;

/**
 * Run in a child JVM with the module's classes on {@code -Xbootclasspath/a}: prints what a
 * profiled application would see. Only public API, as the agent's advice would use it.
 */
public final class BootClassPathMain {
    private BootClassPathMain() {
    }

    public static void main(String[] args) throws Exception {
        System.out.println("loader=" + Rings.class.getClassLoader());
        System.out.println("init=" + RingConfig.init(true, RingConfig.CLOCK_RDTSCP, 256));
        System.out.println("native=" + Rings.NATIVE);
        Thread t = new Thread(() -> {
            for (int i = 0; i < 10; i++) {
                Rings.record(10 | (i << EventCodes.REGION_SHIFT), i); // constants only: format is not on this class path
            }
        }, "boot-probe");
        t.start();
        t.join();
        int[] seen = new int[1];
        boolean[] ended = new boolean[1];
        ByteBuffer scratch = ByteBuffer.allocateDirect(4096);
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (!ended[0] && System.nanoTime() < deadline) {
            Rings.drain((tid, slots, count, lost, end) -> {
                if (tid == t.getId()) {
                    seen[0] += count;
                    ended[0] |= end;
                }
            }, scratch);
            Thread.sleep(1);
        }
        System.out.println("events=" + seen[0] + " ended=" + ended[0] + " name=" + Rings.threadName(t.getId()));
    }
}
