package dev.dprof.consolidator.consolidate;

import dev.dprof.calibrator.estimate.CalibrationException;
import dev.dprof.calibrator.estimate.CalibrationSet;
import dev.dprof.calibrator.estimate.DriftModel;
import dev.dprof.calibrator.estimate.MessageConstraints;
import dev.dprof.calibrator.estimate.TickConverter;
import dev.dprof.clock.SimulatedClock;
import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.consolidator.read.ProcessQueue;
import dev.dprof.consolidator.read.ReadException;
import dev.dprof.consolidator.read.RunDirs;
import dev.dprof.format.FormatException;
import dev.dprof.format.RegionInfo;
import dev.dprof.format.calibration.CalibrationFile;
import dev.dprof.format.calibration.CalibrationFormatException;
import dev.dprof.format.calibration.DomainCalibration;
import dev.dprof.format.calibration.Zero;
import dev.dprof.format.profile.ProfileEventsWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.commons.numbers.fraction.BigFraction;

/**
 * TEST/BENCH COPY of {@link Consolidator#run} for the consolidation benchmark: the same pipeline
 * (inventory, causal index, per-thread streams, causal merge, events.bin, profile.json) with the tick
 * conversion chosen by {@code mode}:
 * <ul>
 * <li>{@code sound}: exactly the product's — calibration polygons tightened by the matched messages
 * ({@link MessageConstraints}), bulk sound conversion ({@link TickConverter#convertSorted}). Its time
 * is checked against {@link Consolidator#run} on the same trace, to show the copy is faithful.</li>
 * <li>{@code point}: what a non-sound tool would do — no polygons, no message constraints: a
 * least-squares line {@code a + b·k} through each domain's zero midpoints, {@code lo = hi}.</li>
 * </ul>
 * The product has no hook for this (the converter is built inside {@code Consolidator.run}); the
 * benchmark's report proposes one. Keep in step with Consolidator, ThreadStream and CausalMerge.
 */
public final class ConversionVariants {
    /** Converts one batch of a thread's ticks ({@code sorted}: ascending) to reference intervals. */
    interface BatchConversion {
        void convert(long[] ticks, int n, boolean sorted, long[] lo, long[] hi);
    }

    /**
     * CPU nanoseconds of the running thread per phase of the last {@link #run} in this JVM, in order
     * (for the benchmark's report; thread CPU time, so that a busy machine does not inflate them).
     */
    public static final Map<String, Long> PHASES = new LinkedHashMap<>();

    private ConversionVariants() {
    }

    static final java.lang.management.ThreadMXBean THREADS = java.lang.management.ManagementFactory.getThreadMXBean();

    static long cpu() {
        return THREADS.getCurrentThreadCpuTime();
    }

    private static long lap(String phase, long since) {
        long now = cpu();
        PHASES.merge(phase, now - since, Long::sum);
        return now;
    }

    /** Runs the pipeline; returns the number of events written. */
    public static long run(Path runs, Path calibrationDir, Path out, String mode, String drift)
            throws ConsolidationException, IOException {
        boolean sound = switch (mode) {
            case "sound" -> true;
            case "point" -> false;
            default -> throw new IllegalArgumentException("mode sound|point, not " + mode);
        };
        DriftModel driftModel = dev.dprof.calibrator.estimate.DriftModels.parse(drift);
        PHASES.clear();
        VariantThreadStream.decodeNs = 0;
        VariantThreadStream.convertNs = 0;
        long t = cpu();
        List<Path> queues;
        RunInventory inventory;
        try {
            queues = RunDirs.expand(List.of(runs));
            inventory = RunInventory.scan(queues);
        } catch (ReadException e) {
            throw new ConsolidationException(e.getMessage());
        }
        t = lap("inventory (1st pass: read and decode every event)", t);
        List<String> problems = new ArrayList<>(inventory.problems());
        CausalIndex causal = new CausalIndex(inventory);
        t = lap("causal index (match messages and barriers)", t);

        CalibrationSet calibration = null;
        Map<String, double[]> lines = new HashMap<>();
        String reference;
        double referenceHz;
        SimulatedClock referenceTruth;
        MessageConstraints.Result constrained = null;
        if (sound) {
            try {
                calibration = CalibrationSet.load(List.of(calibrationDir), driftModel);
            } catch (CalibrationException e) {
                throw new ConsolidationException(e.getMessage());
            }
            t = lap("calibration (read .cal files, build polygons)", t);
            for (RunInventory.Process p : inventory.processes()) {
                if (calibration.conversion(p.header().domainId()).isEmpty()) {
                    throw new ConsolidationException("no calibration for " + p.header().domainId());
                }
            }
            try {
                constrained = MessageConstraints.apply(calibration, causal.matched(), MessageConstraints.DEFAULT_ROUNDS);
            } catch (CalibrationException e) {
                throw new ConsolidationException(e.getMessage());
            }
            calibration = constrained.calibration();
            t = lap("message constraints (" + causal.matched().size() + " matched messages)", t);
            reference = calibration.reference();
            DomainCalibration ref = calibration.domains().stream().filter(DomainCalibration::isReference)
                    .findFirst().orElseThrow();
            referenceHz = ref.nominalTickHz();
            referenceTruth = ref.simulatedClock().map(SimulatedClock::parse).orElse(null);
        } else {
            DomainCalibration ref = null;
            for (DomainCalibration d : readCalibration(calibrationDir)) {
                if (d.isReference()) {
                    ref = d;
                } else {
                    lines.put(d.domainId(), leastSquares(d.zeros()));
                }
            }
            if (ref == null) {
                throw new ConsolidationException("no reference calibration in " + calibrationDir);
            }
            reference = ref.domainId();
            referenceHz = ref.nominalTickHz();
            referenceTruth = ref.simulatedClock().map(SimulatedClock::parse).orElse(null);
            t = lap("calibration (read .cal files, least squares)", t);
        }

        Map<String, Integer> regionIndex = new LinkedHashMap<>();
        List<ProfileInfo.Region> regions = new ArrayList<>();
        List<ProfileInfo.Stream> streamInfos = new ArrayList<>();
        List<ProfileInfo.Process> processInfos = new ArrayList<>();
        List<ProcessQueue> open = new ArrayList<>();
        List<VariantThreadStream> streams = new ArrayList<>();
        boolean truth = referenceTruth != null
                && inventory.processes().stream().allMatch(p -> p.header().simulatedClock().isPresent());
        try {
            for (RunInventory.Process p : inventory.processes()) {
                int[] map = regionMap(p, regionIndex, regions);
                ProcessQueue queue = ProcessQueue.open(p.dir());
                open.add(queue);
                for (long thread : p.threads()) {
                    int stream = streamInfos.size();
                    streamInfos.add(new ProfileInfo.Stream(stream, p.index(), thread, p.threadName(thread)));
                    BatchConversion conversion = sound ? soundConversion(calibration.converter(p.header().domainId()))
                            : pointConversion(lines.get(p.header().domainId()));
                    streams.add(new VariantThreadStream(stream, p.index(), queue.batches(thread), conversion,
                            truth ? referenceTruth : null, map, causal.dependencies(p.index(), thread),
                            causal.signals(p.index(), thread)));
                }
                processInfos.add(processInfo(p, calibration));
            }
            Files.createDirectories(out);
            t = lap("open streams (queues, tailers, converters)", t);
            VariantMerge merge = new VariantMerge(causal, streams);
            long written;
            try (ProfileEventsWriter writer = new ProfileEventsWriter(out.resolve(Profile.EVENTS), truth)) {
                written = merge.run(writer::write);
            }
            long mergeNs = cpu() - t;
            PHASES.put("2nd pass: read and decode batches", VariantThreadStream.decodeNs);
            PHASES.put("2nd pass: convert ticks (" + mode + ")", VariantThreadStream.convertNs);
            PHASES.put("2nd pass: merge and write (the rest)", mergeNs - VariantThreadStream.decodeNs
                    - VariantThreadStream.convertNs);
            t = cpu();
            int unused = constrained == null ? 0 : constrained.unused();
            ProfileInfo info = new ProfileInfo(ProfileInfo.FORMAT_VERSION, sound ? "freezer" : "point (not sound)",
                    sound ? calibration.drift().describe() : "least-squares line through the zeros", reference,
                    referenceHz, null, truth, processInfos, streamInfos, regions,
                    new ProfileInfo.Messages(causal.matched().size(), causal.unmatchedSends(),
                            causal.unmatchedReceives(), causal.ambiguousKeys(), causal.matched().size() - unused,
                            unused, causal.barrierInstanceCount()),
                    written, merge.conflicts(), merge.unbounded(), problems);
            Profile.writeInfo(out, info);
            lap("profile.json", t);
            return written;
        } catch (ReadException | CalibrationException | FormatException e) {
            throw new ConsolidationException(e.getMessage());
        } finally {
            open.forEach(ProcessQueue::close);
        }
    }

    static BatchConversion soundConversion(TickConverter converter) {
        return (ticks, n, sorted, lo, hi) -> {
            if (sorted) {
                converter.convertSorted(ticks, n, lo, hi);
            } else {
                for (int k = 0; k < n; k++) {
                    boolean ok = converter.convert(ticks[k]);
                    lo[k] = ok ? converter.lo() : Long.MIN_VALUE;
                    hi[k] = ok ? converter.hi() : Long.MAX_VALUE;
                }
            }
        };
    }

    /** {@code lo = hi = y0 + round((k − x0)·b)}: a point, and no claim. */
    static BatchConversion pointConversion(double[] line) {
        long x0 = (long) line[0];
        long y0 = (long) line[1];
        double b = line[2];
        return (ticks, n, sorted, lo, hi) -> {
            for (int k = 0; k < n; k++) {
                long v = y0 + Math.round((ticks[k] - x0) * b);
                lo[k] = v;
                hi[k] = v;
            }
        };
    }

    /** {x0, y0, slope}: the least-squares line through the zeros' midpoints ((k1 + k2)/2, a). */
    static double[] leastSquares(List<Zero> zeros) {
        if (zeros.isEmpty()) {
            throw new IllegalArgumentException("a domain without zeros");
        }
        long x0 = zeros.get(0).k1();
        long y0 = zeros.get(0).a();
        double sx = 0;
        double sy = 0;
        for (Zero z : zeros) {
            sx += (z.k1() - x0) + (z.k2() - z.k1()) / 2.0;
            sy += z.a() - y0;
        }
        int n = zeros.size();
        double mx = sx / n;
        double my = sy / n;
        double sxx = 0;
        double sxy = 0;
        for (Zero z : zeros) {
            double dx = (z.k1() - x0) + (z.k2() - z.k1()) / 2.0 - mx;
            sxx += dx * dx;
            sxy += dx * (z.a() - y0 - my);
        }
        double slope = n == 1 || sxx == 0 ? 1 : sxy / sxx;
        return new double[] {x0 + mx, y0 + my, slope};
    }

    private static List<DomainCalibration> readCalibration(Path dir) throws ConsolidationException, IOException {
        List<DomainCalibration> all = new ArrayList<>();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.filter(p -> p.toString().endsWith(CalibrationFile.SUFFIX)).sorted().toList()) {
                all.add(CalibrationFile.read(f));
            }
        } catch (CalibrationFormatException e) {
            throw new ConsolidationException(e.getMessage());
        }
        return all;
    }

    /** As Consolidator.regionMap. */
    private static int[] regionMap(RunInventory.Process p, Map<String, Integer> index, List<ProfileInfo.Region> regions) {
        int max = p.regions().keySet().stream().mapToInt(Integer::intValue).max().orElse(-1);
        int[] map = new int[max + 1];
        java.util.Arrays.fill(map, -1);
        for (RegionInfo r : p.regions().values()) {
            map[r.id()] = index.computeIfAbsent(r.name(), name -> {
                regions.add(new ProfileInfo.Region(regions.size(), name, r.kind()));
                return regions.size() - 1;
            });
        }
        return map;
    }

    /** As Consolidator.processInfo. */
    private static ProfileInfo.Process processInfo(RunInventory.Process p, CalibrationSet calibration) {
        BigFraction[] slope = calibration == null ? new BigFraction[] {BigFraction.of(1), BigFraction.of(1)}
                : calibration.slopeBounds(p.header().domainId());
        String quality = calibration == null ? "POINT" : calibration.quality(p.header().domainId()).name();
        return new ProfileInfo.Process(p.index(), p.header().host(), p.header().pid(), p.header().domainId(), quality,
                p.header().nominalTickHz(), p.header().probeCostTicksX1024() / 1024.0,
                p.header().simulatedClock().map(SimulatedClock::spec).orElse(null),
                p.end().map(e -> e.lostEvents()).orElse(0L), p.end().isPresent(),
                slope == null ? null : slope[0].getNumerator() + "/" + slope[0].getDenominator(),
                slope == null ? null : slope[1].getNumerator() + "/" + slope[1].getDenominator(),
                slope == null ? Double.NaN : slope[0].doubleValue(), slope == null ? Double.NaN : slope[1].doubleValue());
    }
}
