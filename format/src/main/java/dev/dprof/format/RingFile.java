package dev.dprof.format;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * One thread's event ring as the agent leaves it in a file: the agent's probes store into a shared
 * mapping of this file, so the events a process recorded and had not yet written to its queue
 * when it was killed are still here (docs/FORMAT.md "Ring files"). Read-only: opening never
 * changes the file. The layout constants are the C struct's offsets; the agent's {@code NativeRing}
 * hands them to its C through the JNI header, so the writer and this reader cannot disagree.
 */
public final class RingFile {
    /** The subdirectory of a process's queue directory that holds its ring files. */
    public static final String DIRECTORY = "rings";
    public static final String SUFFIX = ".ring";

    public static final int HEAD_AT = 0;
    public static final int LOST_AT = 16;
    public static final int TAIL_AT = 64;
    public static final int MAGIC_AT = 128;
    public static final int VERSION_AT = 136;
    public static final int SLOT_BYTES_AT = 140;
    public static final int EVENTS_AT = 144;
    public static final int THREAD_ID_AT = 152;
    public static final int DEAD_AT = 160;
    public static final int FLAGS_AT = 164;
    public static final int NAME_LENGTH_AT = 168;
    public static final int NAME_AT = 172;
    public static final int NAME_MAX = 256;
    /** From here on the header page holds what only the writing process understands (pointers). */
    public static final int LOCAL_AT = 512;
    /** The slots start here, one page after the file's start. */
    public static final int HEADER_BYTES = 4096;
    /** "DPROFRNG" in little endian; written last when a ring is created. */
    public static final long MAGIC = 0x474E_5246_4F52_5044L;
    public static final int VERSION = 1;
    /** The ring of one of the agent's own threads (its drainer, its warm-up): never recovered. */
    public static final int FLAG_PRIVATE = 1;

    private final long threadId;
    private final String threadName;
    private final long head;
    private final long tail;
    private final long lost;
    private final boolean dead;
    private final boolean agentOwn;
    private final ByteBuffer slots;

    private RingFile(long threadId, String threadName, long head, long tail, long lost, boolean dead,
                     boolean agentOwn, ByteBuffer slots) {
        this.threadId = threadId;
        this.threadName = threadName;
        this.head = head;
        this.tail = tail;
        this.lost = lost;
        this.dead = dead;
        this.agentOwn = agentOwn;
        this.slots = slots;
    }

    /**
     * Reads a ring file: its header and its pending slots, from the drainer's tail to the head.
     *
     * @return null for a file whose ring was still being created (it holds no event yet)
     * @throws FormatException naming what is wrong, for a file that is not a ring file of this version
     */
    public static RingFile read(Path file) throws FormatException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = ch.size();
            if (size < HEADER_BYTES) {
                if (size == 0) {
                    return null;
                }
                throw new FormatException(size + " bytes, shorter than a ring file's header");
            }
            MappedByteBuffer map = ch.map(FileChannel.MapMode.READ_ONLY, 0, size);
            map.order(ByteOrder.LITTLE_ENDIAN);
            long magic = map.getLong(MAGIC_AT);
            if (magic == 0) {
                return null;
            }
            if (magic != MAGIC) {
                throw new FormatException("not a dprof ring file (magic " + Long.toHexString(magic) + ")");
            }
            int version = map.getInt(VERSION_AT);
            if (version != VERSION) {
                throw new FormatException("ring file version " + version + ", this reader knows " + VERSION);
            }
            int slotBytes = map.getInt(SLOT_BYTES_AT);
            long events = map.getLong(EVENTS_AT);
            if (slotBytes != EventBatchEncoder.SLOT_BYTES || events < 2 || (events & (events - 1)) != 0
                    || size < HEADER_BYTES + events * slotBytes) {
                throw new FormatException("inconsistent ring (" + events + " slots of " + slotBytes + " bytes in "
                        + size + " bytes)");
            }
            // head first: the slots it covers were stored before it.
            long head = map.getLong(HEAD_AT);
            long tail = map.getLong(TAIL_AT);
            if (Long.compareUnsigned(head - tail, events) > 0) {
                throw new FormatException("head " + head + " and tail " + tail + " are more than the ring's "
                        + events + " slots apart");
            }
            int nameLength = Math.min(Math.max(map.getInt(NAME_LENGTH_AT), 0), NAME_MAX);
            byte[] name = new byte[nameLength];
            map.get(NAME_AT, name);
            int pending = (int) (head - tail);
            ByteBuffer slots = ByteBuffer.allocate(pending * slotBytes).order(ByteOrder.LITTLE_ENDIAN);
            for (long i = tail; i != head; i++) {
                int from = HEADER_BYTES + (int) (i & (events - 1)) * slotBytes;
                slots.put(map.slice(from, slotBytes));
            }
            slots.flip();
            return new RingFile(map.getLong(THREAD_ID_AT), new String(name, StandardCharsets.UTF_8), head, tail,
                    map.getLong(LOST_AT), map.getInt(DEAD_AT) != 0, (map.getInt(FLAGS_AT) & FLAG_PRIVATE) != 0,
                    slots);
        } catch (IOException e) {
            throw new FormatException("cannot read (" + e.getMessage() + ")");
        }
    }

    /** The Java thread id, or -1 if the thread was stopped between its first event and naming its ring. */
    public long threadId() {
        return threadId;
    }

    public String threadName() {
        return threadName;
    }

    /** The ring index of the next event the thread would have recorded: how many it recorded in all. */
    public long head() {
        return head;
    }

    /** The ring index of the first event not known to be in the queue. */
    public long tail() {
        return tail;
    }

    public long lost() {
        return lost;
    }

    /** Whether the thread had ended (its THREAD_END is the last pending slot). */
    public boolean dead() {
        return dead;
    }

    /** Whether the ring belongs to the agent itself, whose events never go to the queue. */
    public boolean agentOwn() {
        return agentOwn;
    }

    /**
     * The pending slots from ring index {@code from} (at least {@link #tail()}) to the head, in
     * {@link EventBatchEncoder}'s input layout, positioned at 0.
     */
    public ByteBuffer slotsFrom(long from) {
        long skip = Math.max(0, Math.min(from, head) - tail);
        return slots.duplicate().order(ByteOrder.LITTLE_ENDIAN)
                .position((int) skip * EventBatchEncoder.SLOT_BYTES).slice().order(ByteOrder.LITTLE_ENDIAN);
    }
}
