package dev.dprof.report.perfetto;

import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.format.EventKind;
import java.util.Locale;

/**
 * The interning ids of the trace (Perfetto's {@code InternedData}, interned_data.proto): event
 * names and debug-annotation names are written once per packet sequence and referred to by iid
 * after that, which keeps a slice's packets to a few dozen bytes. An iid means the same name on
 * every sequence, as Perfetto requires; iid 0 means none.
 */
final class TraceNames {
    /** The debug annotations the export writes, each under its interned name. */
    enum Arg {
        LO("lo_ns"), HI("hi_ns"), WIDTH("width_ns"), TRUTH("truth_ns"),
        ENTER_LO("enter.lo_ns"), ENTER_HI("enter.hi_ns"), ENTER_WIDTH("enter.width_ns"), ENTER_TRUTH("enter.truth_ns"),
        EXIT_LO("exit.lo_ns"), EXIT_HI("exit.hi_ns"), EXIT_WIDTH("exit.width_ns"), EXIT_TRUTH("exit.truth_ns"),
        THREW("threw"), NOT_EXITED("not_exited"),
        INSTANCE("instance"), CHANNEL("channel"), KEY("key"), BARRIER("barrier"), PARTICIPANTS("participants"),
        COUNT("count"), PROBE_TICKS_X1024("probe_ticks_x1024"), PROBE_PAIRS("probe_pairs");

        static final Arg[] BOUND = {LO, HI, WIDTH, TRUTH};
        static final Arg[] ENTER_BOUND = {ENTER_LO, ENTER_HI, ENTER_WIDTH, ENTER_TRUTH};
        static final Arg[] EXIT_BOUND = {EXIT_LO, EXIT_HI, EXIT_WIDTH, EXIT_TRUTH};
        private static final Arg[][] PAYLOAD = new Arg[EventKind.values().length][];

        static {
            for (EventKind k : EventKind.values()) {
                PAYLOAD[k.ordinal()] = switch (k) {
                    case ENTER_INSTANCE -> new Arg[] {INSTANCE};
                    case SEND, RECEIVE, HANDOFF_PUT, HANDOFF_TAKE -> new Arg[] {CHANNEL, KEY};
                    case BARRIER_ENTER, BARRIER_EXIT -> new Arg[] {BARRIER, PARTICIPANTS};
                    case PROGRESS -> new Arg[] {COUNT};
                    case PROBE_COST -> new Arg[] {PROBE_TICKS_X1024, PROBE_PAIRS};
                    default -> new Arg[0];
                };
            }
        }

        final String text;

        Arg(String text) {
            this.text = text;
        }

        long iid() {
            return ordinal() + 1;
        }

        /** What the payload values {@code a}, {@code b} of an event of this kind mean (EventKind). */
        static Arg[] payload(EventKind kind) {
            return PAYLOAD[kind.ordinal()];
        }
    }

    private final String[] eventNames;

    TraceNames(ProfileInfo info) {
        int regions = info.regions().size();
        EventKind[] kinds = EventKind.values();
        eventNames = new String[1 + regions + kinds.length];
        for (ProfileInfo.Region r : info.regions()) {
            eventNames[1 + r.index()] = r.name();
        }
        for (EventKind k : kinds) {
            eventNames[1 + regions + k.ordinal()] = k.name().toLowerCase(Locale.ROOT).replace('_', ' ');
        }
    }

    /** The name of an event: its region's, or for an event without a region its kind's. */
    long eventIid(int region, EventKind kind) {
        return region >= 0 ? 1 + region : eventNames.length - EventKind.values().length + kind.ordinal();
    }

    String eventName(long iid) {
        return eventNames[(int) iid];
    }
}
