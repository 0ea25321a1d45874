package dev.dprof.format;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.EnumSet;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Which event kinds a region of each kind records: exactly those the agent's probes write there
 * (an enter and exit around a send or a receive, a barrier's or collective's enter and exit, a
 * progress point, a handoff's put or take), and anything in a kind this reader does not know.
 */
class RegionInfoRecordsTest {
    @Test
    void eachRegionKindRecordsWhatItsProbesWrite() {
        Set<EventKind> timed = EnumSet.of(EventKind.ENTER, EventKind.EXIT, EventKind.EXIT_THROW);
        Map<String, Set<EventKind>> expected = Map.of(
                "plain", union(timed, EventKind.ENTER_INSTANCE),
                "send", union(timed, EventKind.SEND),
                "receive", union(timed, EventKind.RECEIVE),
                "barrier", EnumSet.of(EventKind.BARRIER_ENTER, EventKind.BARRIER_EXIT),
                "collective", EnumSet.of(EventKind.BARRIER_ENTER, EventKind.BARRIER_EXIT),
                "progress", EnumSet.of(EventKind.PROGRESS),
                HandoffRegions.REGION_KIND, EnumSet.of(EventKind.HANDOFF_PUT, EventKind.HANDOFF_TAKE),
                "a kind of a later version", EnumSet.allOf(EventKind.class));
        expected.forEach((kind, records) -> {
            RegionInfo region = new RegionInfo(1, "r", kind, "yaml", "test.yaml:1", OptionalLong.empty());
            Set<EventKind> actual = EnumSet.noneOf(EventKind.class);
            for (EventKind k : EventKind.values()) {
                if (region.records(k)) {
                    actual.add(k);
                }
            }
            assertEquals(records, actual, kind);
        });
    }

    private static Set<EventKind> union(Set<EventKind> a, EventKind b) {
        Set<EventKind> u = EnumSet.copyOf(a);
        u.add(b);
        return u;
    }
}
