package dev.dprof.it;

import static dev.dprof.format.EventKind.BARRIER_ENTER;
import static dev.dprof.format.EventKind.BARRIER_EXIT;
import static dev.dprof.format.EventKind.ENTER;
import static dev.dprof.format.EventKind.ENTER_INSTANCE;
import static dev.dprof.format.EventKind.EXIT;
import static dev.dprof.format.EventKind.PROGRESS;
import static dev.dprof.format.EventKind.RECEIVE;
import static dev.dprof.format.EventKind.SEND;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.dprof.agent.bootstrap.Probes;
import dev.dprof.api.DProf;
import dev.dprof.format.EventKind;
import dev.dprof.format.RegionInfo;
import dev.dprof.it.ForkedJvm.Event;
import dev.dprof.it.ForkedJvm.Output;
import dev.dprof.it.ForkedJvm.Recording;
import dev.dprof.it.app.ApiApp;
import dev.dprof.it.app.MessagingApp;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Send, receive, barrier and progress regions: the payloads in the events are the values the
 * application used — numbers by value, strings by {@link Probes#keyOf} (FNV-1a over the chars,
 * the documented contract), which must give the send and the receive of a message the same key.
 * Then the same through {@code dev.dprof.api}: {@code DProf.*} calls and {@code @Region}, and that
 * application without the agent.
 */
class MessagingIT {
    static final String P = "dev.dprof.it.app.MessagingApp$";
    static final String YAML = """
            regions:
              - {name: orders.send, class: %1$sChannel, method: send, kind: send,
                 channel: {arg: 0}, key: {arg: 1, field: seq}}
              - {name: orders.receive, class: %1$sChannel, method: receive, kind: receive,
                 channel: {arg: 0}, key: {return: true}}
              - {name: ids.send, class: %1$sChannel, method: sendId, kind: send,
                 channel: {arg: 0}, key: {arg: 1}}
              - {name: ids.receive, class: %1$sChannel, method: receiveId, kind: receive,
                 channel: {arg: 0}, key: {return: true}}
              - {name: outbox.send, class: %1$sOutbox, method: flush, kind: send,
                 channel: outbox, key: {field: nextSeq}}
              - {name: outbox.ping, class: %1$sOutbox, method: ping, kind: send,
                 channel: {property: it.channel}, key: {const: 42}}
              - {name: outbox.receive, class: %1$sInbox, method: accept, kind: receive,
                 channel: outbox, key: {arg: 0, getter: seq}}
              - {name: phase.await, class: %1$sPhase, method: await, kind: barrier,
                 key: {getter: generation}, participants: {property: it.parties}}
              - {name: phase.arrive, class: %1$sPhase, method: arrive, kind: barrier,
                 key: {arg: 0}, participants: 3}
              - {name: solver.step, class: %1$sSolver, method: step, kind: progress}
              - {name: solver.solve, class: %1$sSolver, method: solve, instance: {arg: 0}}
              - {name: ranked.work, class: %1$sRanked, method: work, instance: {property: it.rank}}
            """.formatted(P);

    @Test
    void yamlKeysReachTheEvents(@TempDir Path tmp) throws Exception {
        Path out = tmp.resolve("out");
        Output output = ForkedJvm.app(MessagingApp.class, tmp).agent(ForkedJvm.config(tmp, YAML), out)
                .property("it.channel", "pings").property("it.parties", 4).property("it.rank", 7).runOk();
        assertEquals(List.of("received 1:id-1 2:id-2 3:id-3", "generation 7, steps 4, next 102", "done"),
                output.stdout(), output::toString);
        assertEquals(1, output.dprofLinesAllWoven().size(), output::toString);
        Recording run = Recording.readOnly(out);
        run.requireCleanEnd();

        // orders: channel {arg: 0} is the string "orders"; the key is the seq field, and the returned long
        long orders = Probes.keyOf("orders");
        List<List<Long>> orderMessages = LongStream.rangeClosed(1, MessagingApp.MESSAGES)
                .mapToObj(seq -> List.of(orders, seq)).toList();
        assertEquals(orderMessages, payloads(run.events("orders.send", SEND)));
        assertEquals(orderMessages, payloads(run.events("orders.receive", RECEIVE)));

        // ids: the key is a string, hashed alike on both sides
        long ids = Probes.keyOf("ids");
        List<List<Long>> idMessages = LongStream.rangeClosed(1, MessagingApp.MESSAGES)
                .mapToObj(seq -> List.of(ids, Probes.keyOf("id-" + seq))).toList();
        assertEquals(idMessages, payloads(run.events("ids.send", SEND)));
        assertEquals(idMessages, payloads(run.events("ids.receive", RECEIVE)));
        assertEquals(fnv1a("id-1"), Probes.keyOf("id-1"), "string keys are FNV-1a over the chars");
        assertNotEquals(Probes.keyOf("id-1"), Probes.keyOf("id-2"));

        // outbox: constant channel; key from a field of this (read before the body), an argument's getter
        long outbox = Probes.keyOf("outbox");
        assertEquals(List.of(List.of(outbox, 100L), List.of(outbox, 101L)), payloads(run.events("outbox.send", SEND)));
        assertEquals(List.of(List.of(outbox, 100L), List.of(outbox, 101L)),
                payloads(run.events("outbox.receive", RECEIVE)));
        // channel from a system property (a string: hashed), integer constant key by value
        assertEquals(List.of(List.of(Probes.keyOf("pings"), 42L)), payloads(run.events("outbox.ping", SEND)));

        // barriers: the generation getter (advanced by each await) with participants from a property,
        // and an argument with a constant participant count; enter and exit name the same instance
        assertEquals(List.of(List.of(5L, 4L), List.of(6L, 4L)), payloads(run.events("phase.await", BARRIER_ENTER)));
        assertEquals(List.of(List.of(5L, 4L), List.of(6L, 4L)), payloads(run.events("phase.await", BARRIER_EXIT)));
        assertEquals(List.of(List.of(11L, 3L)), payloads(run.events("phase.arrive", BARRIER_ENTER)));
        assertEquals(List.of(List.of(11L, 3L)), payloads(run.events("phase.arrive", BARRIER_EXIT)));

        // progress: one visit of 1 per return; instances from an argument and from a property
        assertEquals(List.of(List.of(1L), List.of(1L), List.of(1L), List.of(1L)),
                payloads(run.events("solver.step", PROGRESS)));
        assertEquals(List.of(List.of(2L), List.of(3L)), payloads(run.events("solver.solve", ENTER_INSTANCE)));
        assertEquals(2, run.count("solver.solve", EXIT));
        assertEquals(OptionalLong.of(7), run.region("ranked.work").instance());
        assertEquals(1, run.count("ranked.work", ENTER));
        assertEquals(1, run.count("ranked.work", EXIT));

        // a send or receive region is also a timed region: one enter and one exit per call
        for (String region : List.of("orders.send", "orders.receive", "ids.send", "ids.receive")) {
            assertEquals(MessagingApp.MESSAGES, run.count(region, ENTER), region);
            assertEquals(MessagingApp.MESSAGES, run.count(region, EXIT), region);
        }
        for (String region : List.of("orders.send", "ids.send")) {
            assertEquals("sender", run.threadNames().get(run.events(region, SEND).get(0).thread()));
        }
        for (String region : List.of("orders.receive", "ids.receive")) {
            assertEquals("receiver", run.threadNames().get(run.events(region, RECEIVE).get(0).thread()));
        }
        assertEquals("send", run.region("orders.send").kind());
        assertEquals("receive", run.region("orders.receive").kind());
        assertEquals("barrier", run.region("phase.await").kind());
        assertEquals("progress", run.region("solver.step").kind());
    }

    @Test
    void apiCallsAndAnnotations(@TempDir Path tmp) throws Exception {
        Path out = tmp.resolve("out");
        Output output = ForkedJvm.app(ApiApp.class, tmp).withClasspathOf(DProf.class)
                .agent(ForkedJvm.config(tmp, "# only annotations and API calls\n"), out).runOk();
        assertEquals(List.of("result=36"), output.stdout(), output::toString);
        assertEquals(1, output.dprofLines().size(), output::toString);
        Recording run = Recording.readOnly(out);
        run.requireCleanEnd();

        long chan = Probes.keyOf("chan");
        assertEquals(List.of(List.of(chan, 5L)), payloads(run.events("DProf.send", SEND)));
        assertEquals(List.of(List.of(chan, 5L)), payloads(run.events("DProf.receive", RECEIVE)));
        assertEquals(List.of(List.of(9L, 2L)), payloads(run.events("DProf.barrier", BARRIER_ENTER)));
        assertEquals(List.of(List.of(9L, 2L)), payloads(run.events("DProf.barrier", BARRIER_EXIT)));
        assertEquals(List.of(List.of(1L), List.of(1L), List.of(1L)), payloads(run.events("items", PROGRESS)));
        assertEquals("progress", run.region("items").kind());
        assertEquals("api", run.region("items").origin());

        List<String> sequence = run.thread("api").stream()
                .filter(e -> e.kind() == ENTER || e.kind() == EXIT).map(e -> e.kind() + " " + e.region()).toList();
        assertEquals(List.of("ENTER Annotated#<init>", "EXIT Annotated#<init>", "ENTER api.work", "EXIT api.work",
                "ENTER api.work", "EXIT api.work", "ENTER Annotated#plain", "EXIT Annotated#plain"), sequence);
        for (String region : List.of("api.work", "Annotated#plain", "Annotated#<init>")) {
            RegionInfo info = run.region(region);
            assertEquals("annotation", info.origin(), region);
            assertEquals("plain", info.kind(), region);
        }
        assertEquals(List.of(EventKind.THREAD_START, EventKind.THREAD_END),
                run.thread("api").stream().map(Event::kind)
                        .filter(k -> k == EventKind.THREAD_START || k == EventKind.THREAD_END).toList());
    }

    @Test
    void apiIsANoOpWithoutTheAgent(@TempDir Path tmp) throws Exception {
        Output output = ForkedJvm.app(ApiApp.class, tmp).withClasspathOf(DProf.class).runOk();
        assertEquals(List.of("result=36"), output.stdout(), output::toString);
        assertEquals(List.of(), output.stderr(), output::toString);
    }

    private static List<List<Long>> payloads(List<Event> events) {
        return events.stream().map(e -> e.kind().payloadCount == 1 ? List.of(e.a()) : List.of(e.a(), e.b())).toList();
    }

    /** FNV-1a (64 bit) over UTF-16 chars, written out here so the test does not only trust the agent's copy. */
    private static long fnv1a(String s) {
        long hash = 0xcbf29ce484222325L;
        for (int i = 0; i < s.length(); i++) {
            hash ^= s.charAt(i);
            hash *= 0x100000001b3L;
        }
        return hash;
    }
}
