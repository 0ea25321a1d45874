package dev.dprof.agent.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.dprof.format.HandoffRegions.Kind;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** {@code handoffs:} and custom handoff regions ({@code kind: handoff}), with their one-line errors. */
class HandoffsConfigTest {
    private static AgentConfig parse(String yaml) throws ConfigException {
        return ConfigLoader.parse(yaml, "dprof.yaml");
    }

    private static void fails(String yaml, String message) {
        ConfigException e = assertThrows(ConfigException.class, () -> parse(yaml));
        assertEquals(message, e.getMessage());
    }

    @Test
    void autoByDefaultOffOrAList() throws ConfigException {
        assertEquals(Set.of(Kind.values()), parse("").handoffs());
        assertEquals(Set.of(Kind.values()), parse("clock: rdtsc\n").handoffs());
        assertEquals(Set.of(Kind.values()), parse("handoffs: auto\n").handoffs());
        assertEquals(Set.of(), parse("handoffs: off\n").handoffs());
        assertEquals(Set.of(Kind.QUEUE, Kind.THREAD), parse("handoffs: [queue, thread]\n").handoffs());
        assertEquals(Set.of(Kind.WAIT), parse("handoffs: [wait]\n").handoffs(), "long waits alone");
    }

    @Test
    void badHandoffsAreOneLineWithTheirPlace() {
        fails("handoffs: sometimes\n", "dprof.yaml:1: handoffs: expected auto, off or a list of kinds (queue,"
                + " executor, future, thread, monitor, wait, custom), found 'sometimes'");
        fails("handoffs:\n  - queue\n  - qeue\n", "dprof.yaml:3: handoffs[1]: unknown handoff kind 'qeue'"
                + " (expected one of queue, executor, future, thread, monitor, wait, custom)");
        fails("handoffs: [queue, queue]\n", "dprof.yaml:1: handoffs[1]: duplicate handoff kind 'queue'");
    }

    @Test
    void aCustomHandoffIsKeyedLikeAMessage() throws ConfigException {
        AgentConfig c = parse("""
                regions:
                  - name: inbox.put
                    class: com.example.Inbox
                    method: post
                    kind: handoff
                    side: put
                    key: {arg: 0, getter: id}
                  - name: inbox.take
                    class: com.example.Inbox
                    method: next
                    kind: handoff
                    side: take
                    channel: inbox.put
                    key: {return: true}
                """);
        RegionSpec put = c.regions().get(0);
        RegionSpec take = c.regions().get(1);
        assertEquals(RegionKind.HANDOFF, put.kind());
        assertEquals(Optional.of(RegionSpec.HandoffSide.PUT), put.side());
        assertEquals(Optional.of(new ValueSource.Const("inbox.put")), put.channel(), "a channel named after the region");
        assertEquals(Optional.of(RegionSpec.HandoffSide.TAKE), take.side());
        assertEquals(Optional.of(new ValueSource.Return()), take.key());
        assertEquals(take.channel(), put.channel(), "both ends on one channel");
    }

    @Test
    void badCustomHandoffsAreOneLineWithTheirPlace() {
        fails("regions:\n  - {name: h, class: a.A, method: m, kind: handoff, key: {arg: 0}}\n",
                "dprof.yaml:2: regions[0]: missing required key 'side' for kind handoff (put or take)");
        fails("regions:\n  - {name: h, class: a.A, method: m, kind: handoff, side: give, key: {arg: 0}}\n",
                "dprof.yaml:2: regions[0].side: unknown side 'give' (expected one of put, take)");
        fails("regions:\n  - {name: h, class: a.A, method: m, kind: handoff, side: put}\n",
                "dprof.yaml:2: regions[0]: missing required key 'key' for kind handoff (what identifies the thing"
                        + " handed over)");
        fails("regions:\n  - {name: h, class: a.A, method: m, kind: handoff, side: put, key: {return: true}}\n",
                "dprof.yaml:2: regions[0].key: 'return' is only allowed for kind receive or a handoff's take, not a"
                        + " handoff's put (it is recorded on entry)");
        fails("regions:\n  - {name: h, class: a.A, method: m, side: put}\n",
                "dprof.yaml:2: regions[0].side: not allowed for kind plain (only for handoff)");
    }
}
