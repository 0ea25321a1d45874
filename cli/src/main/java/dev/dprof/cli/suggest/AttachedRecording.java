package dev.dprof.cli.suggest;

import com.sun.tools.attach.AttachNotSupportedException;
import com.sun.tools.attach.VirtualMachine;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import javax.management.JMX;
import javax.management.MBeanServerConnection;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import jdk.management.jfr.FlightRecorderMXBean;

/**
 * Records a running JVM for a while ({@code dprof suggest --pid PID --seconds N}), through the JDK's public
 * interfaces only: the attach API starts the JVM's local management agent (a JMX connector that listens on
 * the loopback interface only, {@code VirtualMachine.startLocalManagementAgent}), and the flight recorder's
 * MXBean ({@code jdk.management.jfr}) starts a recording with {@link FlightSettings}, stops it after the
 * time, and streams it here — so the JVM need not share a file system with this one.
 *
 * <p>The recording is closed in the JVM afterwards, whatever happened; the management agent stays, as the
 * JDK gives no way to stop it. The JVM's stack depth cannot be changed once it runs, so stacks deeper than
 * its default of 64 frames lose their outermost frames (a pool's own frames among them).
 */
public final class AttachedRecording {
    private AttachedRecording() {
    }

    /**
     * Records process {@code pid} for {@code duration} into {@code file}; {@code started} runs once the recording
     * runs.
     *
     * @throws IOException one line naming the process: no such process, it cannot be attached, it has no
     *         flight recorder, or it ended before the recording was read
     */
    public static void record(long pid, Duration duration, Path file, Runnable started)
            throws IOException, InterruptedException {
        if (ProcessHandle.of(pid).isEmpty()) {
            throw new IOException("no such process: " + pid);
        }
        String address;
        try {
            VirtualMachine vm = VirtualMachine.attach(Long.toString(pid));
            try {
                address = vm.startLocalManagementAgent();
            } finally {
                vm.detach();
            }
        } catch (AttachNotSupportedException | IOException e) {
            throw new IOException("cannot attach to process " + pid + " (is it a JVM of this user?): "
                    + e.getMessage(), e);
        }
        try (JMXConnector connector = JMXConnectorFactory.connect(new JMXServiceURL(address))) {
            MBeanServerConnection server = connector.getMBeanServerConnection();
            ObjectName name = new ObjectName(FlightRecorderMXBean.MXBEAN_NAME);
            if (!server.isRegistered(name)) {
                throw new IOException("process " + pid + " has no flight recorder (JFR not available: its runtime"
                        + " lacks the jdk.jfr and jdk.management.jfr modules)");
            }
            FlightRecorderMXBean recorder = JMX.newMXBeanProxy(server, name, FlightRecorderMXBean.class);
            long recording = recorder.newRecording();
            try {
                recorder.setConfiguration(recording, FlightSettings.jfc());
                recorder.setRecordingOptions(recording, Map.of("name", "dprof-suggest", "disk", "true"));
                recorder.startRecording(recording);
                started.run();
                Thread.sleep(duration.toMillis());
                recorder.stopRecording(recording);
                copy(recorder, recording, file);
            } finally {
                try {
                    recorder.closeRecording(recording);
                } catch (IOException | RuntimeException e) {
                    // the JVM ended or the connection broke: the recording went with it
                }
            }
        } catch (MalformedObjectNameException e) {
            throw new IOException("process " + pid + ": JFR not available: " + e.getMessage(), e);
        } catch (IOException e) {
            if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                throw e.getMessage() != null && e.getMessage().startsWith("process " + pid) ? e
                        : new IOException("process " + pid + ": " + e.getMessage(), e);
            }
            throw new IOException("process " + pid + " ended before its recording was read", e);
        } catch (IllegalStateException | IllegalArgumentException | SecurityException e) {
            throw new IOException("process " + pid + ": the flight recorder refused the recording: "
                    + e.getMessage(), e);
        }
    }

    private static void copy(FlightRecorderMXBean recorder, long recording, Path file) throws IOException {
        long stream = recorder.openStream(recording, Map.of());
        try (OutputStream out = Files.newOutputStream(file)) {
            for (byte[] chunk = recorder.readStream(stream); chunk != null; chunk = recorder.readStream(stream)) {
                out.write(chunk);
            }
        } finally {
            recorder.closeStream(stream);
        }
    }
}
