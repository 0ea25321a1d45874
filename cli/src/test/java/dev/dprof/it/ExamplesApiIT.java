package dev.dprof.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.dprof.api.DProf;
import dev.dprof.format.EventKind;
import dev.dprof.it.ExamplesIT.ProfileCheck;
import dev.dprof.it.ForkedJvm.Output;
import dev.dprof.it.app.ApiRingApp;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Messages and barriers stated through {@code dev.dprof.api.DProf} calls, across three JVMs
 * ({@link ApiRingApp}: a ring over {@code java.net.Socket}s, the api jar on the class path, a YAML
 * without regions). Consolidated with {@code Sync.NONE}: every {@code DProf.send} is matched with
 * its {@code DProf.receive}, the TCP streams underneath by byte offsets, and every
 * {@code DProf.barrier} instance has three enters and three exits. The checks are
 * {@link ExamplesIT}'s.
 */
class ExamplesApiIT {
    static final int PROCESSES = 3;
    static final int ROUNDS = 6;
    static final int MESSAGES = 25;

    @Test
    void apiMessagesAndBarriersAcrossThreeJvms(@TempDir Path tmp) throws Exception {
        Path config = ForkedJvm.config(tmp, "# regions: only DProf calls (annotations: true by default)\n");
        // per round MESSAGES messages and two tokens on every link
        long perLink = (long) ROUNDS * (MESSAGES + 2);
        Path runs = tmp.resolve("runs");
        Path ports = Files.createDirectories(tmp.resolve("ports"));
        List<ForkedJvm.Running> ring = new ArrayList<>();
        for (int rank = 0; rank < PROCESSES; rank++) {
            ring.add(ForkedJvm.app(ApiRingApp.class, tmp).withClasspathOf(DProf.class).agent(config, runs)
                    .args(rank, PROCESSES, ports, ROUNDS, MESSAGES).start());
        }
        for (int rank = 0; rank < PROCESSES; rank++) {
            Output output = ring.get(rank).await();
            assertEquals(0, output.exitCode(), output::toString);
            assertEquals(List.of("ring: rank " + rank + " sent " + perLink + " received " + perLink), output.stdout(),
                    output::toString);
            assertEquals(1, output.dprofLines().size(), output::toString);
        }

        ProfileCheck p = ProfileCheck.consolidate(runs, tmp.resolve("profile"), PROCESSES);
        assertEquals(PROCESSES * perLink, p.assertKeyedMessages("DProf.send", "DProf.receive"), p::describe);
        assertEquals(ROUNDS, p.assertBarriers("DProf.barrier", PROCESSES), p::describe);
        p.assertTcpMatched();
        // one tcp.write per message (each is flushed on its own)
        assertEquals(PROCESSES * perLink, p.events("tcp.write", EventKind.SEND).size(), p::describe);
        p.assertAllMatched();
        assertEquals(PROCESSES * perLink + p.events("tcp.read", EventKind.RECEIVE).size(), p.info.messages().matched(),
                p::describe);
    }
}
