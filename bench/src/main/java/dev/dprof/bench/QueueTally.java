package dev.dprof.bench;

import dev.dprof.consolidator.read.ProcessQueue;
import dev.dprof.consolidator.read.ReadException;
import dev.dprof.consolidator.read.RecordVisitor;
import dev.dprof.format.EventBatchReader;
import dev.dprof.format.EventKind;
import dev.dprof.format.FormatException;
import dev.dprof.format.ProcessEnd;
import dev.dprof.format.RegionInfo;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What one process queue holds, read back with the consolidator's reader: events, what the
 * process said it lost, whether it ended normally. With {@code exact}, every event is decoded
 * and the ENTER/EXIT events of {@link ProbeConfig#REGION} are counted one by one; without, only
 * the batches' event counts are summed (fast enough for the gigabytes a JMH fork writes).
 */
final class QueueTally implements RecordVisitor {
    static {
        // Chronicle logs through slf4j-simple here; its INFO banner is noise.
        if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        }
        System.setProperty("chronicle.analytics.disable", "true");
    }

    final Path dir;
    long events;
    long batches;
    /** The batches' bytes (after each one's type byte). */
    long batchBytes;
    long regionEnters;
    long regionExits;
    /** With {@code exact}: events per kind code. */
    final long[] kinds = new long[256];
    boolean ended;
    long lostEvents;
    long eventsWritten;
    String lossReason = "";
    final List<String> problems = new ArrayList<>();
    private final boolean exact;
    private int regionId = -1;

    private QueueTally(Path dir, boolean exact) {
        this.dir = dir;
        this.exact = exact;
    }

    static QueueTally read(Path dir, boolean exact) throws ReadException {
        QueueTally t = new QueueTally(dir, exact);
        try (ProcessQueue q = ProcessQueue.open(dir)) {
            q.read(t);
            t.problems.addAll(q.problems());
        }
        return t;
    }

    /** Whether the queue proves that nothing was dropped: it ended normally, lost 0, and holds all it wrote. */
    boolean lossless() {
        return ended && lostEvents == 0 && problems.isEmpty() && events == eventsWritten;
    }

    @Override
    public void region(RegionInfo region) {
        if (region.name().equals(ProbeConfig.REGION)) {
            regionId = region.id();
        }
    }

    @Override
    public void batch(EventBatchReader b) throws FormatException {
        batches++;
        batchBytes += b.length();
        if (!exact) {
            events += b.count();
            return;
        }
        while (b.next()) {
            events++;
            kinds[b.kind.code]++;
            if (b.region == regionId) {
                if (b.kind == EventKind.ENTER) {
                    regionEnters++;
                } else if (b.kind == EventKind.EXIT) {
                    regionExits++;
                }
            }
        }
    }

    @Override
    public void end(ProcessEnd end) {
        ended = true;
        lostEvents = end.lostEvents();
        eventsWritten = end.eventsWritten();
        lossReason = end.reason();
    }

    @Override
    public String toString() {
        return dir.getFileName() + ": " + events + " events in " + batches + " batches, "
                + (ended ? "ended, " + lostEvents + " lost" + (lossReason.isEmpty() ? "" : " (" + lossReason + ")")
                        : "NO END RECORD (did the process end normally?)")
                + (ended && events != eventsWritten ? ", but the process wrote " + eventsWritten : "")
                + (problems.isEmpty() ? "" : ", " + problems.size() + " unreadable records");
    }
}
