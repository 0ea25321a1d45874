package dev.dprof.bench;

import dev.dprof.consolidator.profile.Profile;
import dev.dprof.report.perfetto.PerfettoExport;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;

/**
 * One Perfetto export in a JVM of its own (started by {@link ExportCommand} with a fixed heap):
 * {@code ExportFork PROFILE_DIR OUT RESULT_FILE SLICE_BUDGET}. Writes the wall time of
 * {@link PerfettoExport#write} alone (JVM start-up excluded), the CPU time of the thread that ran
 * it, the summary, and the sum of the heap pools' peak usage (reset just before the export).
 */
public final class ExportFork {
    private ExportFork() {
    }

    public static void main(String[] args) throws Exception {
        Profile profile = Profile.open(Path.of(args[0]));
        Path out = Path.of(args[1]);
        Path result = Path.of(args[2]);
        long budget = Long.parseLong(args[3]);
        List<MemoryPoolMXBean> heap = ManagementFactory.getMemoryPoolMXBeans().stream()
                .filter(p -> p.getType() == MemoryType.HEAP).toList();
        heap.forEach(MemoryPoolMXBean::resetPeakUsage);
        long cpu0 = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
        long t0 = System.nanoTime();
        PerfettoExport.Summary s = PerfettoExport.write(profile, out, budget);
        long ns = System.nanoTime() - t0;
        long cpuNs = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() - cpu0;
        Properties p = new Properties();
        p.setProperty("ns", Long.toString(ns));
        p.setProperty("cpuNs", Long.toString(cpuNs));
        p.setProperty("events", Long.toString(s.events()));
        p.setProperty("bytes", Long.toString(s.bytes()));
        p.setProperty("packets", Long.toString(s.packets()));
        p.setProperty("slices", Long.toString(s.slices()));
        p.setProperty("flows", Long.toString(s.flows()));
        p.setProperty("peakHeapBytes", Long.toString(heap.stream().mapToLong(m -> m.getPeakUsage().getUsed()).sum()));
        try (Writer w = Files.newBufferedWriter(result)) {
            p.store(w, "dprof bench export fork");
        }
    }
}
