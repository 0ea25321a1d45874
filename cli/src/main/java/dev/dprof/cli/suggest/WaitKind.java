package dev.dprof.cli.suggest;

import java.util.List;

/**
 * What a thread waited for, told from the flight recorder's event and the JDK frames between the wait and the
 * application's method that called it. Each kind says what dprof records of it without configuration
 * (docs/CONFIG.md, "Handoffs"), which is what the suggested YAML says beside the region on that method.
 */
public enum WaitKind {
    SOCKET_READ("socket reads", "TCP is recorded as tcp.read/tcp.write and matched across processes without configuration"),
    SOCKET_WRITE("socket writes", "TCP is recorded as tcp.read/tcp.write and matched across processes without configuration"),
    QUEUE_TAKE("queue takes", "a handoff: the put that fed it is recorded with handoffs: auto"),
    QUEUE_PUT("puts on a full queue", "a handoff: the take that made room is recorded with handoffs: auto"),
    FUTURE("waits for a future", "a handoff: the task that completed it is recorded with handoffs: auto"),
    JOIN("thread joins", "a handoff: the thread's end is recorded with handoffs: auto"),
    MONITOR_WAIT("Object.wait calls", "a handoff: the notify that woke it is recorded with handoffs: auto"),
    LOCK("lock waits", "a wait no handoff explains; if another thread ends it, see kind: handoff (docs/CONFIG.md)"),
    CONDITION("condition waits", "a wait no handoff explains; if another thread ends it, see kind: handoff (docs/CONFIG.md)"),
    LATCH("latch, barrier or semaphore waits", "a wait no handoff explains; a barrier of all threads can be kind: barrier (docs/CONFIG.md)"),
    PARK("other parks", "a wait no handoff explains; if another thread ends it, see kind: handoff (docs/CONFIG.md)"),
    /** A pool worker waiting for its next task: nobody's request waits there, so it is not suggested. */
    POOL_IDLE("idle pool workers", "");

    private final String plural;
    private final String recorded;

    WaitKind(String plural, String recorded) {
        this.plural = plural;
        this.recorded = recorded;
    }

    /** The kind in the plural, for "waited 1.2 s in 30 queue takes". */
    public String plural() {
        return plural;
    }

    /** What dprof records of such a wait without configuration, one phrase. */
    public String recorded() {
        return recorded;
    }

    /**
     * The kind of a {@code jdk.ThreadPark} or {@code jdk.JavaMonitorWait} event, from its JDK frames above the
     * application's first frame ({@code jdkFrames}, top first). The outermost frame that says what it waited for
     * decides, the one the application called: a queue's take waits on a lock's condition, and is a queue take;
     * a pool's {@code getTask} takes from a queue, and is an idle worker.
     */
    static WaitKind ofPark(List<Frame> jdkFrames, boolean monitorWait) {
        for (Frame f : jdkFrames) {
            String c = f.className();
            String m = f.methodName();
            if (c.equals("java.util.concurrent.ThreadPoolExecutor") && m.equals("getTask")
                    || c.equals("java.util.concurrent.ForkJoinPool") && (m.equals("awaitWork") || m.equals("runWorker"))
                    || c.equals("java.util.concurrent.ScheduledThreadPoolExecutor$DelayedWorkQueue")) {
                return POOL_IDLE;
            }
        }
        for (int i = jdkFrames.size() - 1; i >= 0; i--) {
            WaitKind kind = ofJdkMethod(jdkFrames.get(i).className(), jdkFrames.get(i).methodName());
            if (kind != null) {
                return kind;
            }
        }
        return monitorWait ? MONITOR_WAIT : PARK;
    }

    private static WaitKind ofJdkMethod(String c, String m) {
        if (c.equals("java.lang.Thread") && m.equals("join")) {
            return JOIN;
        }
        if (!c.startsWith("java.util.concurrent.")) {
            return null;
        }
        String simple = c.substring(c.lastIndexOf('.') + 1);
        if (c.startsWith("java.util.concurrent.locks.")) {
            // AbstractQueuedSynchronizer is no queue of the application's; LockSupport is any park
            return simple.endsWith("$ConditionObject") ? CONDITION : simple.equals("LockSupport") ? null : LOCK;
        }
        if (simple.contains("Queue") || simple.contains("Deque") || simple.equals("Exchanger")) {
            if (m.startsWith("take") || m.startsWith("poll") || m.equals("exchange")) {
                return QUEUE_TAKE;
            }
            if (m.startsWith("put") || m.startsWith("offer") || m.startsWith("transfer") || m.startsWith("tryTransfer")) {
                return QUEUE_PUT;
            }
            return null;
        }
        if (simple.startsWith("FutureTask") || simple.startsWith("CompletableFuture") || simple.startsWith("ForkJoinTask")) {
            return m.equals("get") || m.equals("join") || m.equals("awaitDone") || m.equals("waitingGet")
                    || m.equals("timedGet") ? FUTURE : null;
        }
        if (simple.startsWith("CountDownLatch") || simple.startsWith("CyclicBarrier") || simple.startsWith("Phaser")
                || simple.startsWith("Semaphore")) {
            return LATCH;
        }
        return null;
    }
}
