package dev.dprof.consolidator.consolidate;

import dev.dprof.calibrator.estimate.CalibrationException;
import dev.dprof.calibrator.estimate.CalibrationReport;
import dev.dprof.calibrator.estimate.CalibrationSet;
import dev.dprof.calibrator.estimate.DriftModel;
import dev.dprof.calibrator.estimate.MessageConstraints;
import dev.dprof.calibrator.estimate.TickConverter;
import dev.dprof.clock.SimulatedClock;
import dev.dprof.consolidator.analysis.messages.HandoffMatcher;
import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.consolidator.read.Damage;
import dev.dprof.consolidator.read.ProcessLoss;
import dev.dprof.consolidator.read.ProcessQueue;
import dev.dprof.consolidator.read.ReadException;
import dev.dprof.consolidator.read.RegionKinds;
import dev.dprof.consolidator.read.RunDirs;
import dev.dprof.consolidator.read.WeavingReports;
import dev.dprof.consolidator.statsmode.StatisticsCopy;
import dev.dprof.format.ClockCheck;
import dev.dprof.format.FormatException;
import dev.dprof.format.RegionInfo;
import dev.dprof.format.calibration.CalibrationFile;
import dev.dprof.format.calibration.DomainCalibration;
import dev.dprof.format.profile.ProfileEventsWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import org.apache.commons.numbers.fraction.BigFraction;

/**
 * Consolidation (DProf §4.3–§4.5): every process's ticks become sound intervals on the
 * reference clock, and all threads' events one causally consistent stream.
 *
 * <ol>
 * <li>{@link RunInventory}: headers, regions, threads and communication events of every queue.</li>
 * <li>{@link CausalIndex}: sends matched with receives, barrier exits with their enters, handoff
 * takes with their puts.</li>
 * <li>The calibration, tightened by the matched messages ({@link MessageConstraints}).</li>
 * <li>One {@link ThreadStream} per thread (its own tailer, one batch in memory, ticks converted in
 * bulk), merged by {@link CausalMerge} into {@code events.bin}; {@code profile.json} last.</li>
 * </ol>
 * Memory is bounded by threads and messages, never by the number of region events.
 */
public final class Consolidator {
    /** How ticks become reference time. */
    public enum Sync {
        /** Sound intervals from the calibration (FreeZer). */
        FREEZER,
        /** No conversion: only for processes that share one clock domain. */
        NONE
    }

    /** What to consolidate and how. */
    public record Options(List<Path> runs, List<Path> calibration, Path out, Sync sync, DriftModel drift,
                          Optional<double[]> windowSeconds) {
    }

    private Consolidator() {
    }

    /**
     * Runs the consolidation.
     *
     * @param progress told the number of events written so far, now and then
     */
    public static ProfileInfo run(Options options, LongConsumer progress) throws ConsolidationException, IOException {
        return run(options, progress, (calibration, domain) -> TickBounds.sound(calibration.converter(domain)),
                phase -> { });
    }

    /**
     * The same with another conversion of ticks (the seam for other synchronization methods).
     *
     * @param phases told the name of each phase as it ends (for the benchmark's breakdown)
     */
    static ProfileInfo run(Options options, LongConsumer progress, TickBounds.Factory conversion, Consumer<String> phases)
            throws ConsolidationException, IOException {
        List<Path> queues;
        try {
            queues = RunDirs.expand(options.runs());
        } catch (ReadException e) {
            throw new ConsolidationException(e.getMessage());
        }
        // The calibration files do not depend on the queues' contents: read them meanwhile.
        Parallel.Pending<CalibrationSet> calibrationLoad = options.sync() == Sync.NONE ? null
                : Parallel.start("dprof-calibration", () -> loadCalibration(options, queues));
        RunInventory inventory;
        try {
            inventory = RunInventory.scan(queues);
        } catch (ReadException e) {
            throw new ConsolidationException(e.getMessage());
        }
        try (inventory) {
            return consolidate(options, progress, conversion, phases, inventory, calibrationLoad);
        }
    }

    /** What a killed process lost, as {@code stats} says it. */
    private static String lossLine(ProcessLoss.Counted loss) {
        return loss.phrase() + (loss.reason().isEmpty() ? "" : " (" + loss.reason() + ")");
    }

    /** Everything after pass 1, on the open inventory. */
    private static ProfileInfo consolidate(Options options, LongConsumer progress, TickBounds.Factory conversion,
                                           Consumer<String> phases, RunInventory inventory,
                                           Parallel.Pending<CalibrationSet> calibrationLoad)
            throws ConsolidationException, IOException {
        phases.accept("pass 1: inventory of every queue");
        List<String> problems = new ArrayList<>(inventory.problems());
        CausalIndex causal = new CausalIndex(inventory);
        phases.accept("causal index");

        Set<String> domains = new LinkedHashSet<>();
        inventory.processes().forEach(p -> domains.add(p.header().domainId()));
        CalibrationSet calibration = null;
        String reference;
        double referenceHz;
        SimulatedClock referenceTruth;
        MessageConstraints.Result constrained = null;
        if (options.sync() == Sync.NONE) {
            if (domains.size() != 1) {
                throw new ConsolidationException("--sync none needs one clock domain, but the processes are in "
                        + domains.size() + ": " + domains + "; give --calibration");
            }
            reference = domains.iterator().next();
            clockFaults(inventory).forEach((domain, why) -> problems.add("domain " + domain + ": " + why
                    + "; with --sync none its raw ticks are used as they are, and their order across CPUs may be wrong"));
            RunInventory.Process first = inventory.processes().get(0);
            referenceHz = first.header().nominalTickHz();
            referenceTruth = first.header().simulatedClock().orElse(null);
        } else {
            calibration = calibrationLoad.join(ConsolidationException.class).withClockFaults(clockFaults(inventory));
            phases.accept("calibration");
            for (RunInventory.Process p : inventory.processes()) {
                if (calibration.conversion(p.header().domainId()).isEmpty()) {
                    throw new ConsolidationException("process " + p.label() + " (" + p.dir() + "): its clock domain "
                            + p.header().domainId() + " has no calibration in " + options.calibration());
                }
                try {
                    calibration.converter(p.header().domainId());
                } catch (CalibrationException e) {
                    throw new ConsolidationException("process " + p.label() + " (" + p.dir() + "): " + e.getMessage());
                }
            }
            if (conversion.usesMessageConstraints()) {
                try {
                    constrained = MessageConstraints.apply(calibration, causal.matched(),
                            MessageConstraints.DEFAULT_ROUNDS);
                } catch (CalibrationException e) {
                    throw new ConsolidationException(e.getMessage());
                }
                calibration = constrained.calibration();
            }
            phases.accept("conversions and message constraints");
            reference = calibration.reference();
            DomainCalibration ref = calibration.domains().stream().filter(DomainCalibration::isReference)
                    .findFirst().orElseThrow();
            referenceHz = ref.nominalTickHz();
            referenceTruth = ref.simulatedClock().map(SimulatedClock::parse).orElse(null);
        }

        Map<String, Integer> regionIndex = new LinkedHashMap<>();
        List<ProfileInfo.Region> regions = new ArrayList<>();
        List<ProfileInfo.Stream> streamInfos = new ArrayList<>();
        List<ProfileInfo.Process> processInfos = new ArrayList<>();
        Map<String, CalibrationReport.Domain> calibrationSummaries = calibrationSummaries(calibration);
        List<ThreadStream> streams = new ArrayList<>();
        List<List<TickBounds>> boundsOfProcess = new ArrayList<>();
        boolean truth = referenceTruth != null
                && inventory.processes().stream().allMatch(p -> p.header().simulatedClock().isPresent());
        RegionKinds kinds = new RegionKinds(problems);
        WeavingReports weaving = new WeavingReports();
        inventory.processes().forEach(p -> weaving.add(p.label(), p.weaving().orElse(null), p.end().isPresent()));
        try {
            for (RunInventory.Process p : inventory.processes()) {
                int[] map = regionMap(p, regionIndex, regions, kinds);
                ProcessQueue queue = p.queue();
                List<TickBounds> own = new ArrayList<>();
                for (long thread : p.threads()) {
                    int stream = streamInfos.size();
                    streamInfos.add(new ProfileInfo.Stream(stream, p.index(), thread, p.threadName(thread)));
                    TickBounds bounds = calibration == null ? null : conversion.forDomain(calibration, p.header().domainId());
                    own.add(bounds);
                    ThreadStream s = new ThreadStream(stream, p.index(), queue.batches(thread), bounds,
                            truth ? referenceTruth : null, map, causal.dependencies(p.index(), thread),
                            causal.signals(p.index(), thread));
                    s.startWait = causal.startWait(p.index(), thread);
                    s.tcp = causal.tcpFlows().process(p.index());
                    streams.add(s);
                }
                boundsOfProcess.add(own);
            }
            Files.createDirectories(options.out());
            phases.accept("open streams");
            CausalMerge merge = new CausalMerge(causal, streams);
            long written;
            try (ProfileEventsWriter writer = new ProfileEventsWriter(options.out().resolve(Profile.EVENTS), truth)) {
                written = merge.run(writer, progress);
            }
            progress.accept(written);
            phases.accept("pass 2: read, convert, merge, write events.bin");
            // A batch the first pass only counted may prove corrupt when decoded: its events are lost here.
            long[] corrupt = new long[inventory.processes().size()];
            for (ThreadStream s : streams) {
                corrupt[s.process] += s.corruptEvents;
                if (s.corruptEvents > 0) {
                    RunInventory.Process p = inventory.processes().get(s.process);
                    problems.add(Damage.line(p.dir() + ": thread " + streamInfos.get(s.stream).thread() + ": "
                            + s.corruptEvents + " events of corrupt batches left out (" + s.firstCorruption + ")"));
                }
            }
            List<ProcessLoss.Counted> losses = new ArrayList<>();
            for (RunInventory.Process p : inventory.processes()) {
                ProcessLoss.Counted loss = p.queue().loss().withCorrupt(corrupt[p.index()]);
                losses.add(loss);
                if (p.end().isEmpty()) {
                    problems.add("process " + p.label() + " (" + p.dir() + ") did not end normally (killed?): its"
                            + " complete events are used" + p.queue().recovered().map(r -> " (" + r + ")").orElse("")
                            + "; " + lossLine(loss) + "; regions it left open have no exit");
                }
            }
            // After pass 2: each process's duration bounds must cover the ticks its threads converted.
            for (RunInventory.Process p : inventory.processes()) {
                ProfileInfo.Process info = processInfo(p, calibration, calibrationSummaries,
                        Coverage.of(boundsOfProcess.get(processInfos.size())), losses.get(p.index()));
                processInfos.add(info);
                ProfileInfo.Calibration c = info.calibration();
                if (c != null && c.contradiction() != null) {
                    problems.add("process " + p.label() + ": the calibration of domain " + p.header().domainId()
                            + " contradicts the assumption (" + c.contradiction() + "); falls back to " + c.fallback()
                            + ": " + c.unboundedEvents() + " events without a bound, left out");
                }
                if (c != null && c.outsideSpanEvents() > 0) {
                    problems.add("process " + p.label() + ": " + c.outsideSpanEvents() + " events lie outside the"
                            + " calibrated span of its domain (before the first zero or after the last): bounded by"
                            + " extrapolation, wider; " + (c.contradiction() == null ? c.unboundedEvents() : 0)
                            + " beyond the " + (long) c.horizonSeconds() + " s horizon have no bound");
                }
            }
            if (merge.unbounded() > 0) {
                problems.add(merge.unbounded() + " events fell where the data contradict the drift assumption or beyond"
                        + " the horizon outside the calibrated span; they have no sound bound and are left out");
            }
            if (merge.conflicts() > 0) {
                problems.add(merge.conflicts() + " causality conflicts (matched keys that contradict program order)");
            }
            problems.addAll(causal.collectiveProblems());
            problems.addAll(causal.tcpFlows().problems());
            if (causal.duplicateOffsets() > 0) {
                problems.add("TCP: " + causal.duplicateOffsets() + " write offsets recorded twice on one connection"
                        + " (a write that sent nothing, or writers racing on a channel); " + causal.droppedReceives()
                        + " reads ending in their bytes constrain nothing");
            }
            int unused = constrained == null ? 0 : constrained.unused();
            ProfileInfo info = new ProfileInfo(ProfileInfo.FORMAT_VERSION, options.sync().name().toLowerCase(),
                    calibration == null ? "none: one clock domain, raw ticks" : calibration.drift().describe(),
                    reference, referenceHz, window(options.windowSeconds(), merge.firstLo(), referenceHz), truth,
                    processInfos, streamInfos, regions,
                    new ProfileInfo.Messages(causal.matched().size(), causal.unmatchedSends(),
                            causal.unmatchedReceives(), causal.ambiguousKeys(), causal.matched().size() - unused,
                            unused, causal.barrierInstanceCount(), tcp(causal), causal.unmatched()),
                    written, merge.conflicts(), merge.unbounded(), problems, handoffs(causal.handoffs()),
                    weaving.toInfo(), inventory.leftOut().stream().map(ProfileInfo.LeftOut::of).toList());
            Profile.writeInfo(options.out(), info);
            copyStatistics(inventory, calibration, conversion, losses, options.out());
            if (calibration != null) {
                keepCalibration(calibrationDirs(options, inventory.processes().stream().map(RunInventory.Process::dir)
                        .toList()), options.out().resolve(Profile.CALIBRATION));
            }
            phases.accept("profile.json");
            return info;
        } catch (CalibrationException | FormatException e) {
            throw new ConsolidationException(e.getMessage());
        }
    }

    /**
     * The statistics-mode records of the run's processes into the profile's {@code statistics.bin}, each
     * interval's ends converted as the process's events are (raw ticks without calibration).
     */
    private static void copyStatistics(RunInventory inventory, CalibrationSet calibration, TickBounds.Factory conversion,
                                       List<ProcessLoss.Counted> losses, Path out)
            throws CalibrationException, IOException {
        StatisticsCopy copy = new StatisticsCopy();
        for (RunInventory.Process p : inventory.processes()) {
            if (!p.header().statisticsMode()) {
                continue;
            }
            TickBounds bounds = calibration == null ? null : conversion.forDomain(calibration, p.header().domainId());
            long[] tick = new long[1];
            long[] lo = new long[1];
            long[] hi = new long[1];
            copy.add(p.index(), p.label(), p.queue(), (t, loHi) -> {
                if (bounds == null) {
                    loHi[0] = t;
                    loHi[1] = t;
                    return;
                }
                tick[0] = t;
                bounds.convert(tick, 1, true, lo, hi);
                loHi[0] = lo[0];
                loHi[1] = hi[0];
            }, p.end().isPresent(), losses.get(p.index()).events());
        }
        copy.write(out);
    }

    /**
     * Per domain, why its counter is not one clock, from its processes' clock checks (the first
     * process that says so; docs/BOUNDS.md "The counter is checked"). A queue without a check
     * (written before it) says nothing.
     */
    private static Map<String, String> clockFaults(RunInventory inventory) {
        Map<String, String> faults = new LinkedHashMap<>();
        for (RunInventory.Process p : inventory.processes()) {
            p.clockCheck().flatMap(ClockCheck::fault).ifPresent(why ->
                    faults.putIfAbsent(p.header().domainId(), why + " (process " + p.label() + ")"));
        }
        return faults;
    }

    private static ProfileInfo.Tcp tcp(CausalIndex causal) {
        TcpFlows flows = causal.tcpFlows();
        return new ProfileInfo.Tcp(flows.paired(), flows.ends(TcpFlows.State.NO_PEER),
                flows.ends(TcpFlows.State.AMBIGUOUS), causal.duplicateOffsets(), causal.droppedReceives());
    }

    private static ProfileInfo.Handoffs handoffs(HandoffMatcher.Matches m) {
        return new ProfileInfo.Handoffs(m.matched(), m.unmatchedPuts(), m.unmatchedTakes(), m.ambiguousKeys());
    }

    /** The folders given, then every queue's own {@code calibration} folder. */
    private static List<Path> calibrationDirs(Options options, List<Path> queues) {
        List<Path> dirs = new ArrayList<>(options.calibration());
        for (Path q : queues) {
            Path own = q.resolve("calibration");
            if (Files.isDirectory(own)) {
                dirs.add(own);
            }
        }
        return dirs;
    }

    /**
     * Copies every {@code .cal} file of the folders into the profile, byte for byte: the point baselines
     * fit their clocks to the same calibration exchanges FreeZer rests on (docs/BASELINES.md), and a
     * profile is all an analysis reads. Numbered, since two folders may hold files of the same name.
     */
    private static void keepCalibration(List<Path> dirs, Path into) throws IOException {
        Files.createDirectories(into);
        try (java.util.stream.Stream<Path> old = Files.list(into)) {
            for (Path f : old.filter(f -> f.toString().endsWith(CalibrationFile.SUFFIX)).toList()) {
                Files.delete(f); // a profile written again into the same folder keeps no stale exchanges
            }
        }
        int n = 0;
        for (Path dir : dirs) {
            List<Path> files;
            try (java.util.stream.Stream<Path> walk = Files.walk(dir)) {
                files = walk.filter(f -> f.toString().endsWith(CalibrationFile.SUFFIX)).sorted().toList();
            }
            for (Path f : files) {
                Files.copy(f, into.resolve(n++ + "-" + f.getFileName()), StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    private static CalibrationSet loadCalibration(Options options, List<Path> queues) throws ConsolidationException {
        List<Path> dirs = calibrationDirs(options, queues);
        if (dirs.isEmpty()) {
            throw new ConsolidationException("no calibration: give --calibration DIR (or --sync none for one clock domain)");
        }
        try {
            return CalibrationSet.load(dirs, options.drift());
        } catch (CalibrationException e) {
            throw new ConsolidationException(e.getMessage());
        }
    }

    /**
     * The process's region ids mapped to global indexes, regions being the same across processes by name
     * and kind ({@link RegionKinds}).
     */
    private static int[] regionMap(RunInventory.Process p, Map<String, Integer> index, List<ProfileInfo.Region> regions,
                                   RegionKinds kinds) {
        int max = p.regions().keySet().stream().mapToInt(Integer::intValue).max().orElse(-1);
        int[] map = new int[max + 1];
        java.util.Arrays.fill(map, -1);
        for (RegionInfo r : p.regions().values()) {
            map[r.id()] = index.computeIfAbsent(kinds.mergedName(r, p.label()), name -> {
                regions.add(new ProfileInfo.Region(regions.size(), name, r.kind()));
                return regions.size() - 1;
            });
        }
        return map;
    }

    private static ProfileInfo.Process processInfo(RunInventory.Process p, CalibrationSet calibration,
                                                   Map<String, CalibrationReport.Domain> summaries, Coverage coverage,
                                                   ProcessLoss.Counted loss) {
        String domain = p.header().domainId();
        BigFraction[] slope = calibration == null ? new BigFraction[] {BigFraction.of(1), BigFraction.of(1)}
                : calibration.slopeBounds(domain, coverage.first(), coverage.last());
        String quality = calibration == null ? "REFERENCE" : calibration.quality(domain).name();
        CalibrationReport.Domain d = summaries.get(domain);
        ProfileInfo.Calibration summary = d == null ? null : new ProfileInfo.Calibration(d.zeros(),
                d.medianZeroWidthNs(), d.frequencyWidthPpm(), d.contradiction(), d.fallback(), coverage.outsideSpan(),
                coverage.unbounded(), d.horizonSeconds());
        return new ProfileInfo.Process(p.index(), p.header().host(), p.header().pid(), domain, quality,
                p.header().nominalTickHz(), p.header().probeCostTicksX1024() / 1024.0,
                p.header().simulatedClock().map(SimulatedClock::spec).orElse(null),
                loss.events(), p.end().isPresent(),
                slope == null ? null : slope[0].getNumerator() + "/" + slope[0].getDenominator(),
                slope == null ? null : slope[1].getNumerator() + "/" + slope[1].getDenominator(),
                slope == null ? Double.NaN : slope[0].doubleValue(), slope == null ? Double.NaN : slope[1].doubleValue(),
                fixedInstances(p), summary, p.clockCheck().map(ClockCheck::summary).orElse(null));
    }

    /**
     * What a process's threads converted: the first and last bounded tick (the range its duration
     * bounds must cover), events outside the calibrated span, events without a bound.
     */
    private record Coverage(long first, long last, long outsideSpan, long unbounded) {
        static Coverage of(List<TickBounds> threads) {
            long first = Long.MAX_VALUE;
            long last = Long.MIN_VALUE;
            long outside = 0;
            long unbounded = 0;
            for (TickBounds b : threads) {
                TickConverter c = b == null ? null : b.counts();
                if (c != null) {
                    first = Math.min(first, c.firstBounded());
                    last = Math.max(last, c.lastBounded());
                    outside += c.outsideSpan();
                    unbounded += c.unbounded();
                }
            }
            return new Coverage(first, last, outside, unbounded);
        }
    }

    /** Each calibrated domain's report, by domain. */
    private static Map<String, CalibrationReport.Domain> calibrationSummaries(CalibrationSet calibration) {
        Map<String, CalibrationReport.Domain> summaries = new java.util.HashMap<>();
        if (calibration != null) {
            for (CalibrationReport.Domain d : CalibrationReport.of(calibration)) {
                summaries.put(d.domain(), d);
            }
        }
        return summaries;
    }

    private static Map<String, Long> fixedInstances(RunInventory.Process p) {
        Map<String, Long> instances = new java.util.TreeMap<>();
        for (RegionInfo r : p.regions().values()) {
            r.instance().ifPresent(i -> instances.put(r.name(), i));
        }
        return instances;
    }

    private static ProfileInfo.Window window(Optional<double[]> seconds, long origin, double hz) {
        if (seconds.isEmpty() || origin == Long.MIN_VALUE) {
            return null;
        }
        double[] w = seconds.get();
        long from = Double.isNaN(w[0]) ? Long.MIN_VALUE : origin + (long) Math.floor(w[0] * hz);
        long to = Double.isNaN(w[1]) ? Long.MAX_VALUE : origin + (long) Math.ceil(w[1] * hz);
        return new ProfileInfo.Window(from, to);
    }
}
