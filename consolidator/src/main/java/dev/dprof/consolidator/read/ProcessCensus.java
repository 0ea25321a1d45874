package dev.dprof.consolidator.read;

import dev.dprof.format.ByteSource;
import dev.dprof.format.EventBatchReader;
import dev.dprof.format.FormatException;
import dev.dprof.format.ProcessEnd;
import dev.dprof.format.RecordType;
import dev.dprof.format.RingFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * How many events a process recorded whose queue cannot be opened (say, Chronicle's own header is
 * damaged), taken from what its files still say, so that the process left out is counted as lost
 * rather than named only ("a process whose files cannot be read, counted by the events its
 * ring files or index say it had"). Nothing here is read through Chronicle: the queue files'
 * document headers are walked with positional reads ({@link QueueFiles}), a damaged stretch skipped
 * to the next offset from which the documents chain to the end ({@link QueueFiles#resync}), and of
 * the documents only two kinds are decoded:
 * <ul>
 * <li>the end record: {@code eventsWritten + lostEvents} is every event the process recorded,
 * exactly (the drainer writes it last, after every batch);</li>
 * <li>without one (a killed process), the batches (each decoded whole, or the count is not exact)
 * and the ring files: per thread, the larger of the events its batches hold and its ring's
 * {@code head} (events it stored since its ring was made), plus the ring's {@code lost}; exact when
 * every ring file was read and the walk reached the end of the written part.</li>
 * </ul>
 * A count that is not exact is a lower bound, said so.
 *
 * <p>Implementation notes: used only on the rare path of a process left out, so it reads whole
 * documents into the heap one at a time and keeps nothing but counts.
 */
public final class ProcessCensus {
    /** The events a process's files say it recorded; {@code exact} false when damage hides more. */
    public record Count(long events, boolean exact, String source) {
        /** "N events" or "at least N events", with where the number comes from. */
        public String phrase() {
            if (!exact && events == 0) {
                return "an unknown number of events (nothing readable counts them)";
            }
            return (exact ? "" : "at least ") + events + " events (" + source + ")";
        }

        /** What a process left out costs, as every command says it. */
        public String leftOut() {
            return "its files say it recorded " + phrase() + ", all counted as lost";
        }
    }

    private final Map<Long, Long> batchEvents = new HashMap<>();
    private ProcessEnd end;
    private boolean complete = true;

    private ProcessCensus() {
    }

    /** What {@code dir}'s queue files and ring files say the process recorded. */
    public static Count of(Path dir) {
        ProcessCensus census = new ProcessCensus();
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir, "*" + QueueFiles.SUFFIX)) {
            stream.forEach(files::add);
        } catch (IOException e) {
            census.complete = false;
        }
        files.sort(Path::compareTo);
        for (Path file : files) {
            census.walk(file);
        }
        if (census.end != null) {
            return new Count(census.end.eventsWritten() + census.end.lostEvents(), true, "its end record");
        }
        return census.withRings(dir);
    }

    private Count withRings(Path dir) {
        Map<Long, Long> perThread = new HashMap<>(batchEvents);
        long ringLost = 0;
        boolean ringsRead = true;
        int rings = 0;
        Path ringDir = dir.resolve(RingFile.DIRECTORY);
        if (Files.isDirectory(ringDir)) {
            try (DirectoryStream<Path> stream = Files.newDirectoryStream(ringDir, "*" + RingFile.SUFFIX)) {
                for (Path file : stream) {
                    try {
                        RingFile ring = RingFile.read(file);
                        if (ring == null || ring.agentOwn() || ring.threadId() < 0) {
                            continue;
                        }
                        rings++;
                        perThread.merge(ring.threadId(), ring.head(), Math::max);
                        ringLost += ring.lost();
                    } catch (FormatException e) {
                        ringsRead = false;
                    }
                }
            } catch (IOException e) {
                ringsRead = false;
            }
        } else if (Files.exists(ringDir)) {
            ringsRead = false;
        }
        long events = perThread.values().stream().mapToLong(Long::longValue).sum() + ringLost;
        String source = rings > 0 ? "its batches and ring files" : "its batches";
        return new Count(events, complete && ringsRead && rings > 0, source);
    }

    /** Walks one queue file's documents, resynchronising after damage. */
    private void walk(Path file) {
        try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ)) {
            long length = in.size();
            long position = 0;
            while (position + 4 <= length) {
                int header = QueueFiles.header(in, position);
                if (header == 0 || header == QueueFiles.END_OF_DATA) {
                    return;
                }
                long size = header & QueueFiles.LENGTH_MASK;
                byte[] document = size > 0 && position + 4 + size <= length ? read(in, position + 4, (int) size) : null;
                if (document == null || !plausible(header, document)) {
                    long next = QueueFiles.resync(in, position, header, length);
                    if (next < 0) {
                        complete = false;
                        return;
                    }
                    if (position > 0) {
                        // a damaged document past Chronicle's header may have been a batch
                        complete = false;
                    }
                    position = next;
                    continue;
                }
                if ((header & QueueFiles.NOT_COMPLETE) == 0 && (header & QueueFiles.META_DATA) == 0) {
                    count(document);
                }
                position = (position + 4 + size + 3) & ~3L;
            }
            complete = false; // the written part runs into the file's end
        } catch (IOException e) {
            complete = false;
        }
    }

    private static boolean plausible(int header, byte[] document) {
        int first = document[0] & 0xFF;
        return (header & QueueFiles.META_DATA) != 0 ? first >= 0x80 : QueueFiles.isRecordType(first);
    }

    private void count(byte[] document) {
        try {
            if (document[0] == RecordType.BATCH) {
                EventBatchReader batch = new EventBatchReader().reset(document, 1, document.length - 1);
                long thread = batch.threadId();
                long events = batch.count();
                while (batch.next()) {
                    // decoded whole, or the count is not trusted
                }
                batchEvents.merge(thread, events, Long::sum);
            } else if (document[0] == RecordType.END) {
                ByteSource in = new ByteSource(ByteBuffer.wrap(document, 1, document.length - 1));
                end = ProcessEnd.decode(in);
            }
        } catch (FormatException e) {
            complete = false;
        }
    }

    private static byte[] read(FileChannel in, long at, int size) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
        while (b.hasRemaining()) {
            if (in.read(b, at + b.position()) < 0) {
                return null;
            }
        }
        return b.array();
    }
}
