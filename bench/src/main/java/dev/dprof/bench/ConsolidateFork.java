package dev.dprof.bench;

import com.sun.management.GarbageCollectionNotificationInfo;
import dev.dprof.calibrator.estimate.DriftModels;
import dev.dprof.consolidator.consolidate.Consolidator;
import dev.dprof.consolidator.consolidate.ConversionVariants;
import dev.dprof.consolidator.profile.ProfileInfo;
import java.io.Writer;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;

/**
 * One consolidation in a JVM of its own (started by {@link ConsolidateCommand} with a fixed heap):
 * {@code ConsolidateFork MODE RUN_DIR CALIBRATION_DIR OUT_DIR RESULT_FILE DRIFT}. Modes:
 * {@code product} runs {@link Consolidator#run} (FreeZer); {@code sound} and {@code point} run the
 * same pipeline through {@link ConversionVariants} with the sound or a plain linear conversion.
 *
 * <p>Writes to RESULT_FILE: the wall time of the consolidation alone (from the call to its return:
 * read, convert, merge, write; JVM start-up excluded), the CPU time of the thread that ran it (the
 * consolidation is single-threaded: on a shared machine this is what it cost, undiluted by waiting
 * for a core) and of the whole process (plus GC and JIT), the events written, and the heap: the sum of
 * every heap pool's peak usage ({@link MemoryPoolMXBean#getPeakUsage}, reset just before the run),
 * and the largest heap occupancy right after a collection (from GC notifications: the live set).
 */
public final class ConsolidateFork {
    private ConsolidateFork() {
    }

    public static void main(String[] args) throws Exception {
        String mode = args[0];
        Path runs = Path.of(args[1]);
        Path calibration = Path.of(args[2]);
        Path out = Path.of(args[3]);
        Path result = Path.of(args[4]);
        String drift = args[5];

        AtomicLong liveAfterGc = new AtomicLong();
        AtomicLong collections = new AtomicLong();
        AtomicLong gcMillis = new AtomicLong();
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            ((NotificationEmitter) gc).addNotificationListener((notification, handback) -> {
                if (!notification.getType().equals(GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION)) {
                    return;
                }
                GarbageCollectionNotificationInfo info = GarbageCollectionNotificationInfo.from(
                        (CompositeData) notification.getUserData());
                long used = info.getGcInfo().getMemoryUsageAfterGc().values().stream()
                        .mapToLong(MemoryUsage::getUsed).sum();
                liveAfterGc.accumulateAndGet(used, Math::max);
                collections.incrementAndGet();
                gcMillis.addAndGet(info.getGcInfo().getDuration());
            }, null, null);
        }
        List<MemoryPoolMXBean> heap = ManagementFactory.getMemoryPoolMXBeans().stream()
                .filter(p -> p.getType() == MemoryType.HEAP).toList();
        // One collection before the timer, so that the first GC notification (whose JDK code binds
        // its string concatenations and spins classes for them) is handled outside the measurement.
        System.gc();
        Thread.sleep(200);
        liveAfterGc.set(0);
        collections.set(0);
        gcMillis.set(0);
        heap.forEach(MemoryPoolMXBean::resetPeakUsage);

        java.lang.management.ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long cpu0 = threads.getCurrentThreadCpuTime();
        long process0 = os.getProcessCpuTime();
        long t0 = System.nanoTime();
        long events = switch (mode) {
            case "product" -> {
                ProfileInfo info = Consolidator.run(new Consolidator.Options(List.of(runs), List.of(calibration), out,
                        Consolidator.Sync.FREEZER, DriftModels.parse(drift), Optional.empty()), n -> { });
                if (info.unboundedEvents() > 0 || info.causalityConflicts() > 0) {
                    throw new IllegalStateException("the benchmark trace must consolidate cleanly: " + info.problems());
                }
                yield info.events();
            }
            case "sound", "point" -> ConversionVariants.run(runs, calibration, out, mode, drift);
            default -> throw new IllegalArgumentException("mode product|sound|point, not " + mode);
        };
        long ns = System.nanoTime() - t0;
        long cpuNs = threads.getCurrentThreadCpuTime() - cpu0;
        long processCpuNs = os.getProcessCpuTime() - process0;

        Map<String, Long> phases = new LinkedHashMap<>();
        if (!mode.equals("product")) {
            phases.putAll(ConversionVariants.PHASES);
        }
        long peak = heap.stream().mapToLong(p -> p.getPeakUsage().getUsed()).sum();
        Properties p = new Properties();
        p.setProperty("mode", mode);
        p.setProperty("events", Long.toString(events));
        p.setProperty("ns", Long.toString(ns));
        p.setProperty("cpuNs", Long.toString(cpuNs));
        p.setProperty("processCpuNs", Long.toString(processCpuNs));
        p.setProperty("peakHeapBytes", Long.toString(peak));
        p.setProperty("liveAfterGcMaxBytes", Long.toString(liveAfterGc.get()));
        p.setProperty("collections", Long.toString(collections.get()));
        p.setProperty("gcMillis", Long.toString(gcMillis.get()));
        p.setProperty("maxHeapBytes", Long.toString(Runtime.getRuntime().maxMemory()));
        p.setProperty("gc", String.join(",", ManagementFactory.getGarbageCollectorMXBeans().stream()
                .map(GarbageCollectorMXBean::getName).toList()));
        StringBuilder pools = new StringBuilder();
        for (MemoryPoolMXBean pool : heap) {
            pools.append(pools.length() == 0 ? "" : "; ").append(pool.getName()).append(' ')
                    .append(pool.getPeakUsage().getUsed() >> 20).append(" MiB");
        }
        p.setProperty("pools", pools.toString());
        int i = 0;
        for (Map.Entry<String, Long> e : phases.entrySet()) {
            p.setProperty("phase." + i++, e.getKey() + "=" + e.getValue());
        }
        try (Writer w = Files.newBufferedWriter(result)) {
            p.store(w, "dprof bench consolidate fork");
        }
    }
}
