package dev.dprof.it.app;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;

/**
 * {@code ZooKeeperLoad CONNECT WRITES LANES WARMUP [PID,…]}: a fixed amount of write load on a ZooKeeper
 * ensemble through ZooKeeper's own client API, {@code WRITES} {@code setData} calls of 64 bytes
 * over {@code LANES} znodes, at most {@code LANES} in flight (each lane issues its next write from
 * the callback of its last). Prints {@code zk-load: writes N ok N failed N span S s}, the span from
 * the first write's issue to the last write's callback, and exits 0 only if every write succeeded.
 * Before the span, {@code WARMUP} synchronous writes from the main thread (outside the regions)
 * let the JIT compile the servers' and the client's paths, which a short load would otherwise
 * measure interpreted. With the servers' process ids, it prints the scheduler statistics of each
 * of their threads ({@link ThreadSchedStats}) right before the span's first write and right after
 * its last callback, outside the span.
 *
 * <p>The asynchronous API is used on purpose: its answers reach the callbacks through the
 * client's event queue (a {@code LinkedBlockingQueue} the agent records), whereas a synchronous
 * call waits on its packet's monitor, which no handoff records. {@code Lane#issue} and
 * {@code Lane#processResult} are the regions the harness's YAML names as the span.
 */
public final class ZooKeeperLoad {
    private static final String ROOT = "/dprof";
    private static final long CONNECT_TIMEOUT_SEC = 60;

    private ZooKeeperLoad() {
    }

    /** One znode written over and over, one write in flight at a time. */
    static final class Lane implements AsyncCallback.StatCallback {
        private final ZooKeeper zk;
        private final String path;
        private final Load load;
        private final byte[] data = new byte[64];

        Lane(ZooKeeper zk, String path, Load load) {
            this.zk = zk;
            this.path = path;
            this.load = load;
        }

        /** Issues the next write of the load, if any is left. */
        void issue() {
            int n = load.issued.getAndIncrement();
            if (n >= load.writes) {
                return;
            }
            Arrays.fill(data, (byte) n);
            zk.setData(path, data, -1, this, null);
        }

        @Override
        public void processResult(int rc, String p, Object ctx, Stat stat) {
            if (rc == KeeperException.Code.OK.intValue()) {
                load.ok.incrementAndGet();
            } else {
                load.failed.incrementAndGet();
                if (load.firstError.compareAndSet(0, rc)) {
                    System.err.println("zk-load: " + p + ": " + KeeperException.Code.get(rc));
                }
            }
            if (load.ok.get() + load.failed.get() == load.writes) {
                load.endNanos = System.nanoTime();
                load.done.countDown();
            } else {
                issue();
            }
        }
    }

    /** The load's counters. */
    static final class Load {
        final int writes;
        final AtomicInteger issued = new AtomicInteger();
        final AtomicInteger ok = new AtomicInteger();
        final AtomicInteger failed = new AtomicInteger();
        final AtomicInteger firstError = new AtomicInteger();
        final CountDownLatch done = new CountDownLatch(1);
        volatile long endNanos;

        Load(int writes) {
            this.writes = writes;
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 4 && args.length != 5) {
            System.err.println("usage: ZooKeeperLoad CONNECT WRITES LANES WARMUP [PID,…]");
            System.exit(2);
        }
        String connect = args[0];
        int writes = Integer.parseInt(args[1]);
        int lanes = Integer.parseInt(args[2]);
        int warmup = Integer.parseInt(args[3]);
        long[] servers = args.length == 5 ? Arrays.stream(args[4].split(",")).mapToLong(Long::parseLong).toArray()
                : new long[0];
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper zk = new ZooKeeper(connect, 30_000, event -> {
            if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        });
        int exit;
        try {
            exit = run(zk, connect, connected, writes, lanes, warmup, servers);
        } finally {
            zk.close();
        }
        System.exit(exit);
    }

    private static int run(ZooKeeper zk, String connect, CountDownLatch connected, int writes, int lanes, int warmup,
            long[] servers) throws KeeperException, InterruptedException {
        if (!connected.await(CONNECT_TIMEOUT_SEC, TimeUnit.SECONDS)) {
            System.err.println("zk-load: no connection to " + connect + " within " + CONNECT_TIMEOUT_SEC + " s");
            return 1;
        }
        createIfAbsent(zk, ROOT);
        Load load = new Load(writes);
        Lane[] all = new Lane[lanes];
        for (int i = 0; i < lanes; i++) {
            String path = ROOT + "/lane-" + i;
            createIfAbsent(zk, path);
            all[i] = new Lane(zk, path, load);
        }
        for (int i = 0; i < warmup; i++) {
            zk.setData(all[i % lanes].path, new byte[64], -1);
        }
        System.out.println("zk-load: connected to " + connect + ", session 0x" + Long.toHexString(zk.getSessionId()));
        printSchedStats("start", servers);
        long start = System.nanoTime();
        for (Lane lane : all) {
            lane.issue();
        }
        if (!load.done.await(5, TimeUnit.MINUTES)) {
            System.err.println("zk-load: " + (load.ok.get() + load.failed.get()) + " of " + writes
                    + " writes answered within 5 minutes");
            return 1;
        }
        printSchedStats("end", servers);
        System.out.printf(Locale.ROOT, "zk-load: writes %d ok %d failed %d span %.6f s%n", writes,
                load.ok.get(), load.failed.get(), (load.endNanos - start) / 1e9);
        return load.failed.get() == 0 ? 0 : 1;
    }

    /** Reads every server's threads first and prints after, so that the readings lie close together. */
    private static void printSchedStats(String when, long[] servers) {
        List<ThreadSchedStats.Sample> samples = new ArrayList<>();
        for (long pid : servers) {
            samples.addAll(ThreadSchedStats.read(pid));
        }
        samples.forEach(s -> System.out.println(ThreadSchedStats.line(when, s)));
    }

    private static void createIfAbsent(ZooKeeper zk, String path) throws KeeperException, InterruptedException {
        try {
            zk.create(path, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        } catch (KeeperException.NodeExistsException e) {
            // a lane of an earlier load on the same data
        }
    }
}
