package dev.dprof.cli.suggest;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import jdk.jfr.consumer.RecordedClass;
import jdk.jfr.consumer.RecordedClassLoader;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedMethod;
import jdk.jfr.consumer.RecordedObject;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * Reads flight recordings ({@code jdk.jfr.consumer.RecordingFile}) into a {@link Tally}: the stack of every
 * {@code jdk.ExecutionSample}, and the duration and stack of every {@code jdk.ThreadPark},
 * {@code jdk.JavaMonitorWait}, {@code jdk.SocketRead} and {@code jdk.SocketWrite}, and the callees of the
 * JIT's inlinings at hot call sites ({@code jdk.CompilerInlining}; {@link FlightSettings} names the events and
 * their thresholds). Each file is one JVM.
 *
 * <p>A frame's class is the JDK's when the boot or the platform class loader defined it
 * ({@code RecordedClass.getClassLoader()}: the recorder names the boot loader {@code bootstrap}, with no type,
 * and the platform loader {@code platform}; no loader at all is taken as the boot loader too).
 * Frames' methods are interned per file, so a recording of many samples keeps one {@link Frame} per method.
 */
public final class RecordingReader {
    static final String EXECUTION_SAMPLE = "jdk.ExecutionSample";
    static final String THREAD_PARK = "jdk.ThreadPark";
    static final String MONITOR_WAIT = "jdk.JavaMonitorWait";
    static final String SOCKET_READ = "jdk.SocketRead";
    static final String SOCKET_WRITE = "jdk.SocketWrite";
    static final String COMPILER_INLINING = "jdk.CompilerInlining";
    /** The C2 compiler's message for a call it inlined because the call site is hot. */
    static final String INLINED_HOT = "inline (hot)";
    /** {@code RecordedFrame.getType()} of a frame in code the JIT compiled, and of one it inlined there. */
    static final String JIT_COMPILED = "JIT compiled";
    static final String INLINED = "Inlined";

    private final Tally tally;
    private final Set<String> threads = new HashSet<>();
    private int recordings;
    private Instant first;
    private Instant last;

    public RecordingReader(Tally tally) {
        this.tally = tally;
    }

    /**
     * Reads one recording.
     *
     * @throws IOException naming the file, when it is not a flight recording or cannot be read
     */
    public void read(Path file) throws IOException {
        Map<RecordedMethod, Frame> frames = new HashMap<>();
        try (RecordingFile recording = new RecordingFile(file)) {
            while (recording.hasMoreEvents()) {
                RecordedEvent e = recording.readEvent();
                String type = e.getEventType().getName();
                if (type.equals(COMPILER_INLINING)) {
                    inlining(e);
                    continue;
                }
                WaitKind wait = switch (type) {
                    case THREAD_PARK -> WaitKind.PARK;
                    case MONITOR_WAIT -> WaitKind.MONITOR_WAIT;
                    case SOCKET_READ -> WaitKind.SOCKET_READ;
                    case SOCKET_WRITE -> WaitKind.SOCKET_WRITE;
                    default -> null;
                };
                if (wait == null && !type.equals(EXECUTION_SAMPLE) || e.getStackTrace() == null) {
                    continue;
                }
                if (wait == null) {
                    RecordedThread thread = e.getThread("sampledThread");
                    threads.add(recordings + ":" + (thread == null ? "?" : thread.getJavaThreadId()));
                    sample(e.getStackTrace(), frames);
                } else {
                    List<Frame> stack = stack(e.getStackTrace(), frames);
                    tally.waited(wait, e.getDuration().toNanos(), stack);
                }
                first = first == null || e.getStartTime().isBefore(first) ? e.getStartTime() : first;
                last = last == null || e.getEndTime().isAfter(last) ? e.getEndTime() : last;
            }
        } catch (IOException | RuntimeException e) {
            throw new IOException(file + ": cannot read the flight recording: " + e.getMessage(), e);
        }
        recordings++;
    }

    private static List<Frame> stack(RecordedStackTrace trace, Map<RecordedMethod, Frame> frames) {
        List<RecordedFrame> recorded = trace.getFrames();
        List<Frame> stack = new ArrayList<>(recorded.size());
        for (RecordedFrame f : recorded) {
            if (f.isJavaFrame() && f.getMethod() != null) {
                stack.add(frames.computeIfAbsent(f.getMethod(), RecordingReader::frame));
            }
        }
        return stack;
    }

    /** An execution sample: its frames, and which of them ran compiled or inlined ({@code RecordedFrame.getType()}). */
    private void sample(RecordedStackTrace trace, Map<RecordedMethod, Frame> frames) {
        List<Frame> stack = new ArrayList<>();
        BitSet compiled = new BitSet();
        BitSet inlined = new BitSet();
        for (RecordedFrame f : trace.getFrames()) {
            if (f.isJavaFrame() && f.getMethod() != null) {
                String type = f.getType();
                compiled.set(stack.size(), JIT_COMPILED.equals(type) || INLINED.equals(type));
                inlined.set(stack.size(), INLINED.equals(type));
                stack.add(frames.computeIfAbsent(f.getMethod(), RecordingReader::frame));
            }
        }
        tally.sample(stack, compiled, inlined);
    }

    /** A {@code jdk.CompilerInlining} event: its callee, as a {@link Frame}, if the call site was hot. */
    private void inlining(RecordedEvent e) {
        if (e.getBoolean("succeeded") && INLINED_HOT.equals(e.getString("message"))) {
            RecordedObject callee = e.getValue("callee");
            String owner = callee.getString("type");
            if (owner != null) {
                tally.inlinedAtHotSite(new Frame(owner.replace('/', '.'), callee.getString("name"),
                        callee.getString("descriptor"), 0, false, false));
            }
        }
    }

    static Frame frame(RecordedMethod m) {
        RecordedClass type = m.getType();
        RecordedClassLoader loader = type.getClassLoader();
        String loaderName = loader == null ? null : loader.getName();
        boolean jdk = loader == null || "bootstrap".equals(loaderName) || "platform".equals(loaderName);
        return new Frame(type.getName(), m.getName(), m.getDescriptor(), m.getModifiers(), m.isHidden(), jdk);
    }

    /** How many recordings (JVMs) were read. */
    public int recordings() {
        return recordings;
    }

    /** How many threads had execution samples, over all recordings. */
    public int threads() {
        return threads.size();
    }

    /** Seconds from the first to the last event read, 0 without events. */
    public double seconds() {
        return first == null ? 0 : (last.toEpochMilli() - first.toEpochMilli()) / 1000.0;
    }
}
