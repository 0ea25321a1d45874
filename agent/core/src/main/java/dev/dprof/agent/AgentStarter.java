package dev.dprof.agent;

import dev.dprof.agent.bootstrap.AgentThreads;
import dev.dprof.agent.bootstrap.HandoffStats;
import dev.dprof.agent.bootstrap.NativeClock;
import dev.dprof.agent.bootstrap.NativeLibrary;
import dev.dprof.agent.bootstrap.Probes;
import dev.dprof.agent.bootstrap.RingConfig;
import dev.dprof.agent.bootstrap.Rings;
import dev.dprof.agent.bootstrap.VirtualThreads;
import dev.dprof.agent.config.AgentConfig;
import dev.dprof.agent.config.CalibrationSpec;
import dev.dprof.agent.config.ClockChoice;
import dev.dprof.agent.config.ConfigException;
import dev.dprof.agent.config.ConfigLoader;
import dev.dprof.agent.config.RecordingMode;
import dev.dprof.agent.instrument.RegionMatches;
import dev.dprof.agent.instrument.RegionTable;
import dev.dprof.agent.instrument.Weaver;
import dev.dprof.agent.sink.DiskReserve;
import dev.dprof.agent.sink.Drainer;
import dev.dprof.agent.sink.DrainerProcess;
import dev.dprof.agent.sink.HostPump;
import dev.dprof.agent.sink.QueueSink;
import dev.dprof.agent.sink.RunDrain;
import dev.dprof.agent.stats.StatisticsMode;
import dev.dprof.calibrator.net.AgentCalibration;
import dev.dprof.calibrator.net.HostPort;
import dev.dprof.calibrator.net.SharedKey;
import dev.dprof.clock.ClockSource;
import dev.dprof.clock.DomainClock;
import dev.dprof.clock.HostName;
import dev.dprof.clock.SimulatedClock;
import dev.dprof.format.HostRecords;
import dev.dprof.format.ProcessHeader;
import dev.dprof.format.RecordType;
import dev.dprof.format.RingFile;
import dev.dprof.format.WeavingSummary;
import dev.dprof.settings.DprofSettings;
import java.io.IOException;
import java.lang.instrument.Instrumentation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.function.Supplier;

/**
 * Starts profiling once the bootstrap part is reachable: configuration, clock, drainer (which opens
 * the queue on its own thread while this one builds the ByteBuddy agent), weaving — in that order,
 * so that no woven code can run before its events have somewhere to go. The JDK's handoff classes
 * loaded before the agent are retransformed on a thread of their own while the drainer warms up;
 * {@code main} waits for both, and then for the JIT warm-up ({@link JitWarmup}).
 * {@code timing=true} prints how long each phase took ({@link StartPhases}; docs/CONFIG.md, "Start-up").
 * Any failure before weaving leaves the application untouched, with one line saying why.
 */
final class AgentStarter {
    static final String VERSION = "0.1.0";
    /** How long the start waits for the drainer's header and warm-up (its own budget is 1.5 s). */
    private static final long WARM_WAIT_MS = 3000;
    /**
     * The system property an attach leaves in the JVM: its woven line, which {@code dprof attach} reads
     * back (the attach API has no other way for an agent to answer).
     */

    /**
     * Where this JVM records, once profiling has started. A second start (attaching twice, or
     * attaching to a JVM started with {@code -javaagent}) is refused: a second drainer would split
     * every ring's events between two queues, and its region ids would clash with the first's.
     * A start that failed before its drainer ran leaves it unset, so attaching again with a fixed
     * config works.
     */
    private static Path recording;

    private AgentStarter() {
    }

    static synchronized void start(String args, Instrumentation inst, boolean attached, StartPhases phases) {
        if (attached) {
            clearAttachReport(); // an attach that is refused or fails must not pass for the one before it
        }
        if (recording != null) {
            warn("already recording to " + recording + "; this " + (attached ? "attach" : "start")
                    + " is ignored");
            return;
        }
        AgentConfig config;
        Optional<SimulatedClock> simulated;
        AgentArgs parsed;
        try {
            parsed = AgentArgs.parse(args);
            config = overridden(parsed.config().isPresent() ? ConfigLoader.load(parsed.config().get())
                    : AgentConfig.defaults(), parsed);
            simulated = DomainClock.simulatedFromEnvironment();
        } catch (ConfigException | IllegalArgumentException e) {
            warn(e.getMessage() + "; the application runs unprofiled");
            return;
        }
        phases.enable(parsed.timing());
        phases.mark("config");
        String configName = parsed.config().map(Path::toString).orElse("(no config)");
        try {
            JdkOpener.open(inst);
            JdkWarnings.silence();
        } catch (RuntimeException e) {
            warn("cannot open the JDK's packages to the agent (" + e + "); the application runs unprofiled");
            return;
        }
        Set<ThreadLocal<?>> inherited = InheritedLocals.snapshot();
        Set<Thread> threads = StartThreads.snapshot();
        phases.mark("open JDK");
        try {
            startRecording(inst, attached, config, simulated, parsed, configName, phases);
        } finally {
            InheritedLocals.added(inherited);
            AgentThreads.own(StartThreads.since(threads));
            phases.report("start");
        }
    }

    private static void startRecording(Instrumentation inst, boolean attached, AgentConfig config,
                                       Optional<SimulatedClock> simulated, AgentArgs parsed, String configName,
                                       StartPhases phases) {
        boolean rdtscp = config.clock() == ClockChoice.RDTSCP;
        String clockLine = RingConfig.init(config.clock().isCounter(),
                rdtscp ? RingConfig.CLOCK_RDTSCP : RingConfig.CLOCK_RDTSC, config.ringEvents());
        ClockSource source = !Rings.NATIVE ? ClockSource.NANOTIME
                : !NativeClock.isTsc() ? ClockSource.CNTVCT : rdtscp ? ClockSource.RDTSCP : ClockSource.RDTSC;
        DomainClock clock = new DomainClock(source, Rings.NATIVE ? NativeClock::rdtsc : System::nanoTime, simulated);
        phases.mark("native clock");
        long startTick = clock.now();
        long startMillis = System.currentTimeMillis();
        long pid = ProcessHandle.current().pid();
        String host = HostName.get();

        RegionTable table;
        Weaver weaver;
        Path dir = parsed.out().orElse(config.out()).resolve(host + "-" + pid + "-" + startMillis);
        try {
            table = new RegionTable(config.regions(), configName);
            weaver = new Weaver(config, table, AgentStarter::warn);
            Files.createDirectories(dir);
        } catch (ConfigException | IllegalArgumentException e) {
            warn(e.getMessage() + "; the application runs unprofiled");
            return;
        } catch (IOException | RuntimeException e) {
            warn("cannot write the event queue in " + dir + " (" + e + "); the application runs unprofiled");
            return;
        }
        phases.mark("weaver");
        try {
            Rings.useRingFiles(dir.resolve(RingFile.DIRECTORY));
        } catch (IOException | RuntimeException e) {
            warn("cannot make ring files (" + e + "); after a kill -9, events of the last "
                    + config.drainIntervalMs() + " ms are lost");
        }
        int statisticsInterval = config.mode() == RecordingMode.STATISTICS ? config.statisticsIntervalMs() : 0;
        Drainer.HeaderFactory header = (hz, cost) -> new ProcessHeader(RecordType.FORMAT_VERSION, host, pid,
                startMillis, startTick, clock.domainId(), source, clockLine, hz, simulated, cost,
                Runtime.version().toString(), VERSION, configName, config.drainIntervalMs(), statisticsInterval,
                statisticsInterval == 0 || parsed.alsoTrace());
        // The calibration's final exchange comes after the last drain, so no drained tick is after it.
        CountDownLatch lastDrain = new CountDownLatch(1);
        Supplier<WeavingSummary> beforeEnd = () -> {
            lastDrain.countDown();
            return endOfRun(weaver, inst);
        };
        RunDrain drainer = null;
        if (parsed.processDrainer() && statisticsInterval > 0) {
            warn("drainer=process does not aggregate statistics yet; the rings are drained by a thread of this JVM");
        } else if (parsed.processDrainer()) {
            drainer = processDrainer(dir, pid, table, clock, rdtscp, config, header);
        }
        if (drainer == null) {
            // The drainer opens the queue (Chronicle's classes) on its thread while this one loads ByteBuddy's.
            Drainer thread = threadDrainer(dir, table, clock, rdtscp, config, header, parsed.warmup());
            if (statisticsInterval > 0) {
                StatisticsMode mode = new StatisticsMode(statisticsInterval, parsed.alsoTrace());
                config.traceWindows().ifPresent(w -> mode.traceWindows(w.everyMs(), w.lengthMs()));
                thread.statisticsMode(mode);
            }
            drainer = thread;
        }
        drainer.beforeEnd(beforeEnd);
        drainer.start();
        recording = dir;
        weaver.prepare(inst);
        phases.mark("ByteBuddy");
        Exception notOpened = awaitOpen(drainer);
        if (notOpened != null && drainer instanceof HostPump) {
            // It published only the header and the clock check: the thread drainer starts from scratch.
            warn("drainer process not started (" + notOpened.getMessage() + "); draining in the application's JVM");
            removeQueueStart(dir);
            drainer = threadDrainer(dir, table, clock, rdtscp, config, header, parsed.warmup());
            drainer.beforeEnd(beforeEnd);
            drainer.start();
            notOpened = awaitOpen(drainer);
        }
        if (notOpened != null) {
            warn("cannot write the event queue in " + dir + " (" + notOpened + "); the application runs unprofiled");
            Rings.removeRingFiles();
            recording = null;
            return;
        }
        phases.mark("queue");
        Optional<AgentCalibration> calibration = config.calibration()
                .flatMap(c -> startCalibration(c, clock, dir.resolve("calibration")));
        calibration.ifPresent(c -> c.finalExchangeAfter(lastDrain));
        Probes.progressRegistry(name -> table.register(name, "progress", "api", "DProf.progress"));
        if (!config.handoffs().isEmpty()) {
            Runtime.getRuntime().addShutdownHook(new Thread(AgentStarter::reportHandoffs, "dprof-handoffs"));
        }
        if (attached) {
            // The application's threads run: weaving waits until the drainer's warm-up no longer drains
            // their rings into its scratch queue.
            awaitWarm(drainer);
            weaver.install(inst, false);
        } else {
            // Before main no thread of the application exists: the weaving begins while the drainer still
            // warms up, and the JDK's handoff classes loaded already are retransformed on a thread of their
            // own meanwhile (see weaveBeside), so main waits for the longest of the three, not their sum.
            weaver.install(inst, true);
            Thread jdkWeaving = weaveBeside(weaver, inst);
            phases.mark("weaving");
            awaitWarm(drainer);
            phases.mark("drainer warm");
            joinUninterruptibly(jdkWeaving);
            phases.mark("JDK handoff classes");
        }
        // The JIT warm-up runs without the start's directive: C2 is to compile what it prepares for.
        StartCompilerDirective.removeAdded();
        // Attached to a running application, the JIT warm-up would only compete with it: what it
        // prepares for, the application's first class loads and lambdas, is behind it.
        if (parsed.warmup() && !attached) {
            warmUpBeforeMain(weaver, inst, phases);
        }
        if (drainer instanceof HostPump pump) {
            pump.drainerExit().ifPresent(code -> warn("the drainer process has ended already (exit code " + code
                    + ", its lines are in " + dir.resolve(DrainerProcess.LOG) + "); the readers recover this run"
                    + " from its ring files"));
        }
        // Quiet on the host where nanoTime is what the build declared (no library for this platform);
        // the header records the clock either way.
        if (!Rings.NATIVE && config.clock().isCounter() && !NativeLibrary.absent()) {
            warn(clockLine);
        }
        if (Runtime.version().feature() >= 21 && !VirtualThreads.SUPPORTED) {
            warn("virtual threads are recorded as part of their carriers (" + VirtualThreads.unsupportedReason() + ")");
        }
        warn("recording " + config.regions().size() + " configured regions to " + dir + (attached ? " (attached)" : ""));
        // The exchange before main: bounded (AgentCalibration.PRE_MAIN_WAIT_MILLIS from its start), so
        // an unreachable base never holds the application back; weaving above ran meanwhile.
        calibration.ifPresent(AgentCalibration::awaitFirstExchange);
        if (attached) {
            // What was loaded before the attach is woven by now: say how much, as the end of the run will.
            reportAttached(weaver.matches().summary(RegionMatches.loadedClassNames(inst.getAllLoadedClasses())));
        }
    }

    /**
     * At the end of the run, on the drainer's thread before its end record: what was woven, one line,
     * then one line per YAML region that matched no method, with the reason and the nearest name. The
     * summary goes to the queue too, for {@code dprof stats} and {@code consolidate}.
     */
    private static WeavingSummary endOfRun(Weaver weaver, Instrumentation inst) {
        WeavingSummary summary = weaver.matches().summary(RegionMatches.loadedClassNames(inst.getAllLoadedClasses()));
        if (summary.configuredRegions() > 0) {
            warn(summary.wovenLine());
        }
        for (WeavingSummary.Region r : summary.unmatched()) {
            warn(r.describe());
        }
        return summary;
    }

    /**
     * On attach, the woven line, on the application's stderr and, through
     * {@link DprofSettings#ATTACH_REPORT_PROPERTY}, to {@code dprof attach}, which prints it too. (The start line's count used to be the region table's
     * size, which on attach already held the TCP regions of the JDK's loaded socket classes: 35 where
     * the same file gave 33 at start.)
     */
    private static void reportAttached(WeavingSummary summary) {
        warn(summary.wovenLine());
        try {
            DprofSettings.publishAttachReport(summary.wovenLine());
        } catch (SecurityException e) {
            // dprof attach then says only that it attached
        }
    }

    /** The drainer thread, which opens the queue (Chronicle's classes) on its thread while the start loads ByteBuddy's. */
    private static Drainer threadDrainer(Path dir, RegionTable table, DomainClock clock, boolean rdtscp,
                                         AgentConfig config, Drainer.HeaderFactory header, boolean warmup) {
        return new Drainer(() -> QueueSink.open(dir, config.diskReserveBytes()), table, clock, rdtscp,
                config.drainIntervalMs(), config.ringEvents(), header,
                warmup ? Path.of(System.getProperty("java.io.tmpdir")) : null, AgentStarter::warn);
    }

    /**
     * What a drainer process that did not get to drain may have left: the host's records, and a queue
     * holding at most the header, which the thread drainer writes again.
     */
    private static void removeQueueStart(Path dir) {
        try {
            HostRecords.delete(dir.resolve(RingFile.DIRECTORY));
            try (java.nio.file.DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*.{cq4,cq4t}")) {
                for (Path f : files) {
                    Files.deleteIfExists(f);
                }
            }
        } catch (IOException | RuntimeException e) {
            warn("cannot remove what the drainer process left in " + dir + " (" + e + ")");
        }
    }

    /**
     * The host's half of a drainer in its own process (docs/DESIGN.md, "The drainer in its own
     * process"): the disk reserve for the rings and the host's records, the drainer process started,
     * the pump made. Null, with one line saying why, when it cannot be: the start then drains in a
     * thread of this JVM, as without {@code drainer=process}.
     */
    private static RunDrain processDrainer(Path dir, long pid, RegionTable table, DomainClock clock, boolean rdtscp,
                                           AgentConfig config, Drainer.HeaderFactory header) {
        String why;
        if (!Rings.NATIVE) {
            why = "the rings are in this JVM's heap: no native library";
        } else if (!Rings.durable()) {
            why = "no ring files";
        } else {
            try {
                long reserve = config.diskReserveBytes() >= 0 ? config.diskReserveBytes()
                        : DiskReserve.of(dir);
                Rings.setDiskReserve(reserve);
                Process process = DrainerProcess.start(dir, pid, reserve);
                HostRecords.Writer records = new HostRecords.Writer(dir.resolve(RingFile.DIRECTORY), reserve);
                return new HostPump(records, table, clock, rdtscp, config.drainIntervalMs(), config.ringEvents(), header,
                        process, dir.resolve(DrainerProcess.LOG), AgentStarter::warn);
            } catch (IOException e) {
                why = e.getMessage();
            } catch (RuntimeException | Error e) {
                // Whatever the JVM's process start throws (an unusable launch mechanism is an Error): never the host's.
                why = e.toString();
            }
        }
        warn("drainer process not started (" + why + "); draining in the application's JVM");
        return null;
    }

    /**
     * Retransforms the JDK's handoff classes that were loaded before the agent ({@link Weaver#weaveDeferred})
     * on a thread of the agent's, while the drainer finishes its warm-up; the start joins it before
     * {@code main}, so every handoff of the application is woven from its first instruction.
     *
     * <p>Implementation notes: from the installation on, woven code may run before the drainer's
     * warm-up ends, whose passes go to its scratch queue. Only the agent's threads and the JVM's own
     * run then (no thread of the application exists before {@code main}, and the agent's events are
     * dropped anyway), so no application event can be lost there.
     */
    private static Thread weaveBeside(Weaver weaver, Instrumentation inst) {
        Thread t = new Thread(() -> weaver.weaveDeferred(inst), "dprof-weave");
        t.setDaemon(true);
        // Own before it starts: main joins it, and that join is no handoff of the application's.
        AgentThreads.own(java.util.List.of(t));
        t.start();
        return t;
    }

    /**
     * Runs the JIT warm-up ({@link JitWarmup}) before {@code main}. It costs the start 1–2 s, and it
     * must: run beside {@code main}, its compilations competed with the application's, and the
     * K-Means span of "Agent overhead" (BENCHMARKS.md) was 43% slower with the agent (JIT time in the
     * span 3.9 s against 0.7 s without).
     */
    private static void warmUpBeforeMain(Weaver weaver, Instrumentation inst, StartPhases phases) {
        long t0 = System.nanoTime();
        int rounds = JitWarmup.run(() -> weaver.warmUpFilter(inst));
        if (DprofSettings.debug()) {
            warn("JIT warm-up: " + rounds + " rounds in " + (System.nanoTime() - t0) / 1_000_000 + " ms");
        }
        phases.mark("JIT warm-up, " + rounds + " rounds");
    }

    private static void joinUninterruptibly(Thread t) {
        boolean interrupted = false;
        while (true) {
            try {
                t.join();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits for the drainer's queue (see {@link Drainer#awaitOpen}); returns why it failed, or null. */
    private static Exception awaitOpen(RunDrain drainer) {
        try {
            return drainer.awaitOpen();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return e;
        }
    }

    /**
     * Lets the drainer compile its path and the probes before the application runs (see
     * {@link Drainer}); no thread of the application runs yet, so none of its events waits meanwhile.
     */
    private static void awaitWarm(RunDrain drainer) {
        try {
            if (!drainer.awaitWarm(WARM_WAIT_MS)) {
                warn("warm-up still running after " + WARM_WAIT_MS + " ms; starting the application anyway");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void clearAttachReport() {
        try {
            DprofSettings.clearAttachReport();
        } catch (SecurityException e) {
            // then no report is set either
        }
    }

    /**
     * Calibrates the probes' clock domain against the YAML's base on a daemon thread, with the
     * YAML's key, else the environment's, else none only if the YAML says {@code insecure: true}
     * (one line); never throws.
     */
    private static Optional<AgentCalibration> startCalibration(CalibrationSpec spec, DomainClock clock, Path out) {
        try {
            Optional<SharedKey> key = SharedKey.choose(spec.keyFile(), spec.insecure(), "calibration.keyFile",
                    "calibration.insecure: true");
            if (key.isEmpty()) {
                warn(SharedKey.insecureLine("calibration.insecure: true"));
            }
            return AgentCalibration.start(new HostPort(spec.host(), spec.port()), spec.intervalSec(), key, clock, out,
                    AgentStarter::warn, t -> AgentThreads.own(java.util.List.of(t)));
        } catch (IllegalArgumentException e) {
            warn(e.getMessage() + "; calibration off, the application runs on");
        } catch (RuntimeException e) {
            warn("calibration off (" + e + "); the application runs on");
        }
        return Optional.empty();
    }

    /** The YAML's configuration with what the agent arguments override ({@code handoffs=}). */
    private static AgentConfig overridden(AgentConfig config, AgentArgs args) {
        return args.handoffs().map(on -> config.withHandoffs(on ? AgentConfig.ALL_HANDOFFS : java.util.Set.of()))
                .orElse(config);
    }

    /** At exit: the handoff edges the probes had to drop, if any (counted, never silent). */
    private static void reportHandoffs() {
        String summary = HandoffStats.summary();
        if (summary != null) {
            warn(summary);
        }
    }

    static void warn(String line) {
        System.err.println(line.startsWith("dprof:") ? line : "dprof: " + line);
    }
}
