package dev.dprof.consolidator.read;

import dev.dprof.format.EventCodes;
import dev.dprof.format.EventKind;
import dev.dprof.format.RegionInfo;
import java.util.Map;

/**
 * What a pending slot of an application thread's ring file can hold, by what the agent records
 * (docs/FORMAT.md "Ring files"): a slot without a checksum of its own is proven corrupt when its
 * kind is unknown, when its region id is not in its process's region table, when its kind is one
 * its region's kind never records ({@link RegionInfo#records}), when no probe of a thread writes
 * that kind there, or when no probe writes its payload (below). The tick's order is checked by {@link RingRecovery#intactSlots}.
 *
 * <ul>
 * <li>Thread start and end and a virtual thread's mount and unmount carry region 0, every other
 * kind a region of the table.</li>
 * <li>Process start and end are recorded by nobody, and the probe cost only into the drainer's own
 * batches: never in a ring.</li>
 * <li>A progress point's payload is 1 (one visit); a virtual thread's id, a mount's or an
 * unmount's payload, is positive.</li>
 * <li>A ring's first slot (index 0) is its THREAD_START (the agent's C stamps it as it makes the
 * ring). Without virtual threads (a JVM before 21) there is no mount or unmount, no other
 * THREAD_START, and THREAD_END is the ring's last slot; with them a virtual thread's start and end
 * are recorded on its carriers' rings, anywhere.</li>
 * </ul>
 * A region recorded just before a kill may not be in the table yet (the drainer writes a region's
 * record with the next drain, before the events that use it): such a slot is left out too, since
 * nothing would say what its region is.
 */
final class SlotCheck {
    /** Why a slot is left out; {@link #text} is how the problem line says it. */
    enum Fault {
        UNKNOWN_KIND("an unknown event kind"),
        TICK_ORDER("a tick out of its thread's order"),
        UNKNOWN_REGION("a region id its process's table does not hold"),
        KIND_OF_REGION("a kind its region's kind never records"),
        NOT_THERE("a kind no probe records at that place of a ring"),
        PAYLOAD("a payload no probe writes");

        final String text;

        Fault(String text) {
            this.text = text;
        }
    }

    private final Map<Integer, RegionInfo> regions;
    private final boolean virtualThreads;

    /**
     * @param regions        the process's region table, by id (the queue's REGION records)
     * @param virtualThreads whether the process's JVM has virtual threads
     *                       ({@link ProcessQueue#mayHaveVirtualThreads})
     */
    SlotCheck(Map<Integer, RegionInfo> regions, boolean virtualThreads) {
        this.regions = regions;
        this.virtualThreads = virtualThreads;
    }

    /**
     * Why the slot with event header {@code header} and first payload {@code a} at ring index
     * {@code index} of a ring whose head is {@code head} cannot be what a probe wrote, or null if it can.
     */
    Fault fault(int header, long a, long index, long head) {
        EventKind kind = EventKind.ofCode(EventCodes.kind(header));
        if (kind == null) {
            return Fault.UNKNOWN_KIND;
        }
        int region = EventCodes.region(header);
        if ((index == 0) != (kind == EventKind.THREAD_START) && !(virtualThreads && index > 0)) {
            return Fault.NOT_THERE;
        }
        switch (kind) {
            case PROCESS_START, PROCESS_END, PROBE_COST -> {
                return Fault.NOT_THERE;
            }
            case THREAD_START, THREAD_END, VT_MOUNT, VT_UNMOUNT -> {
                if (region != 0) {
                    return Fault.UNKNOWN_REGION;
                }
                boolean marker = kind == EventKind.VT_MOUNT || kind == EventKind.VT_UNMOUNT;
                if (!virtualThreads && (marker || kind == EventKind.THREAD_END && index != head - 1)) {
                    return Fault.NOT_THERE;
                }
                return marker && a <= 0 ? Fault.PAYLOAD : null;
            }
            default -> {
                RegionInfo info = regions.get(region);
                if (info == null) {
                    return Fault.UNKNOWN_REGION;
                }
                if (!info.records(kind)) {
                    return Fault.KIND_OF_REGION;
                }
                return kind == EventKind.PROGRESS && a != 1 ? Fault.PAYLOAD : null;
            }
        }
    }
}
