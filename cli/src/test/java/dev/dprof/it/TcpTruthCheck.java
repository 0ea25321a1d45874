package dev.dprof.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.format.EventKind;
import dev.dprof.format.TcpRegions;
import dev.dprof.format.profile.ProfileEvent;
import dev.dprof.format.profile.ProfileEventsReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The checks every framework's connections must pass, on a profile consolidated from JVMs on
 * simulated clocks ({@link SimulatedMachines}): the consolidator paired every connection's two ends
 * and left no write and no read unmatched; every converted tick contains its truth; and, recounted
 * from the events by byte offsets ({@link TcpRegions}: a write's first offset, a read's end), on every
 * flow the reads return each byte once and in order, every write's bytes are returned by some read,
 * and the write of a read's last byte is another process's, comes before the read in the
 * consolidated order and truly happened before it (the truth column: one machine's real TSC).
 */
final class TcpTruthCheck {
    /** A TCP event where the profile put it: its rank in the consolidated order, its process and its truth. */
    private record At(long rank, int process, long truth) {
    }

    private TcpTruthCheck() {
    }

    /**
     * Runs the checks; {@code connections} is how many connections the JVMs made between them.
     * Returns the bytes read on each flow (the largest read end), by flow.
     */
    static Map<Long, Long> assertMatched(Path profile, ProfileInfo info, int connections) throws Exception {
        String summary = "messages " + info.messages() + ", problems " + info.problems();
        assertEquals(new ProfileInfo.Tcp(connections, 0, 0, 0, 0), info.messages().tcp(), summary);
        assertEquals(0, info.messages().unmatchedSends(), summary);
        assertEquals(0, info.messages().unmatchedReceives(), summary);
        assertEquals(0, info.messages().ambiguousKeys(), summary);
        assertEquals(0, info.causalityConflicts(), summary);
        for (ProfileInfo.Process p : info.processes()) {
            assertTrue(p.ended(), () -> "process " + p.pid() + " wrote no end record; " + summary);
            assertEquals(0, p.lostEvents(), () -> "process " + p.pid() + " lost events; " + summary);
        }
        Profile opened = Profile.open(profile);
        assertTrue(opened.info().truth(), "the clocks are simulated: the profile has a truth column");
        int write = region(info, TcpRegions.WRITE);
        int read = region(info, TcpRegions.READ);

        Map<Long, TreeMap<Long, At>> writes = new HashMap<>();
        Map<Long, Long> readEnds = new HashMap<>();
        List<String> wrong = new ArrayList<>();
        long rank = 0;
        long reads = 0;
        try (ProfileEventsReader events = opened.events()) {
            ProfileEvent e = new ProfileEvent();
            while (events.next(e)) {
                rank++;
                if (e.lo > e.truth || e.truth > e.hi) {
                    fail("event " + rank + " (" + e.kind + "): truth " + e.truth + " outside [" + e.lo + ", " + e.hi + "]");
                }
                int process = info.streams().get(e.stream).process();
                boolean tcp = (e.kind == EventKind.SEND && e.region == write) || (e.kind == EventKind.RECEIVE && e.region == read);
                if (tcp && (e.lo == Long.MIN_VALUE || e.hi == Long.MAX_VALUE)) {
                    wrong.add("a TCP " + e.kind + " without a bound (rank " + rank + ")");
                }
                if (e.kind == EventKind.SEND && e.region == write) {
                    At previous = writes.computeIfAbsent(e.a, f -> new TreeMap<>()).put(e.b, new At(rank, process, e.truth));
                    if (previous != null) {
                        wrong.add("flow " + e.a + ": two writes start at " + e.b);
                    }
                } else if (e.kind == EventKind.RECEIVE && e.region == read) {
                    reads++;
                    long end = e.b;
                    Long before = readEnds.put(e.a, end);
                    if (before != null && before >= end) {
                        wrong.add("flow " + e.a + ": a read ending at " + end + " after one ending at " + before);
                    }
                    TreeMap<Long, At> flow = writes.get(e.a);
                    Map.Entry<Long, At> last = flow == null ? null : flow.floorEntry(end - 1);
                    if (last == null) {
                        wrong.add("flow " + e.a + ": the read ending at " + end + " (rank " + rank
                                + ") comes before any write of its bytes");
                    } else if (last.getValue().process() == process || last.getValue().truth() >= e.truth) {
                        wrong.add("flow " + e.a + ": the read ending at " + end + " and the write at " + last.getKey()
                                + ": " + last.getValue() + " vs process " + process + " truth " + e.truth);
                    }
                }
            }
        }
        assertEquals(List.of(), wrong);
        assertEquals(reads, info.messages().matched(), () -> "every read matched; " + summary);
        assertEquals(2 * connections, writes.size(), () -> "flows written: " + writes.keySet());
        for (Map.Entry<Long, TreeMap<Long, At>> flow : writes.entrySet()) {
            long end = readEnds.getOrDefault(flow.getKey(), 0L);
            assertTrue(flow.getValue().lastKey() < end, () -> "flow " + flow.getKey() + ": the write at "
                    + flow.getValue().lastKey() + " was never read (reads end at " + end + ")");
        }
        assertTrue(reads > 0 && rank > reads, "no TCP reads");
        return readEnds;
    }

    private static int region(ProfileInfo info, String name) {
        return info.regions().stream().filter(r -> r.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no region " + name + " in the profile")).index();
    }
}
