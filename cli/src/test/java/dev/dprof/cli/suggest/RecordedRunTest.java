package dev.dprof.cli.suggest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.agent.config.ConfigLoader;
import dev.dprof.agent.config.RegionSpec;
import dev.dprof.cli.suggest.Tally.Suggestion;
import dev.dprof.it.app.SuggestWorkload;
import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link RecordingReader} and {@link Tally} on a real flight recording, made here with {@link FlightSettings}
 * from a small workload ({@link SuggestWorkload}, in a package of its own: {@code dev.dprof.cli} is dprof's, never
 * suggested) whose every part is sure to be recorded, whatever the load of the host: the compute runs until its thread has used {@value SuggestWorkload#CPU_MILLIS} ms of CPU (tens of sampling
 * periods), the queue's taker parks until the test has seen it parked and waited 5 ms more, and the socket's
 * reader waits for a reply the server sends 100 ms after the request. The JDK's frames (the thread's
 * {@code run}, the queue, the socket) are left out by their class loader, the agent's own never appear.
 */
class RecordedRunTest {
    static Path recording;

    @BeforeAll
    static void record(@TempDir Path tmp) throws Exception {
        Configuration settings = Configuration.create(new StringReader(FlightSettings.jfc()));
        try (Recording r = new Recording(settings)) {
            r.start();
            SuggestWorkload.runAll();
            r.stop();
            recording = tmp.resolve("workload.jfr");
            r.dump(recording);
        }
    }

    static Map<String, Suggestion> suggest(MethodFilter filter) throws IOException {
        Tally tally = new Tally(filter);
        new RecordingReader(tally).read(recording);
        return tally.suggest(50).stream().collect(Collectors.toMap(s -> s.method().toString(), Function.identity()));
    }

    @Test
    void theComputeItsConstructorAndTheWaitSitesAreSuggestedWithTheirDescriptors() throws Exception {
        Map<String, Suggestion> s = suggest(MethodFilter.application());
        String workload = SuggestWorkload.class.getName();
        Suggestion spin = s.get(workload + "#spin(J)J");
        assertTrue(spin != null && spin.reasons().get(0).startsWith("on the stack in "), s::toString);
        Suggestion crunch = s.get(workload + "$Crunch#<init>(I)V");
        assertTrue(crunch != null && crunch.reasons().get(0).startsWith("on the stack in "), s::toString);
        Suggestion consume = s.get(workload + "#consume(Ljava/util/concurrent/BlockingQueue;)I");
        assertTrue(consume != null && consume.reasons().stream().anyMatch(r -> r.contains(" queue takes (")),
                s::toString);
        Suggestion read = s.get(workload + "#readReply(Ljava/io/InputStream;)I");
        assertTrue(read != null && read.reasons().stream().anyMatch(r -> r.contains(" socket reads (")),
                s::toString);
        for (String method : s.keySet()) {
            assertTrue(!method.startsWith("java.") && !method.startsWith("jdk.") && !method.startsWith("sun."),
                    () -> method + " is the JDK's: " + s.keySet());
        }
    }

    @Test
    void theYamlOfARealRecordingIsReadByTheAgentsLoader() throws Exception {
        Tally tally = new Tally(MethodFilter.application());
        new RecordingReader(tally).read(recording);
        List<Suggestion> suggestions = tally.suggest(10);
        List<RegionSpec> regions = ConfigLoader.parse(SuggestionYaml.write(List.of(), suggestions), "s.yaml")
                .regions();
        assertEquals(suggestions.size(), regions.size());
        assertTrue(regions.stream().anyMatch(r -> r.methodPattern().equals("spin")
                && r.descriptor().orElseThrow().equals("(J)J")), regions::toString);
    }

    @Test
    void includeNamesTheJdkAndExcludeRemovesTheWorkload() throws Exception {
        Map<String, Suggestion> queue = suggest(MethodFilter.of(List.of("java.util.concurrent.*Queue"), List.of()));
        assertTrue(queue.keySet().stream().allMatch(m -> m.startsWith("java.util.concurrent.")), queue::toString);
        assertTrue(queue.containsKey("java.util.concurrent.LinkedBlockingQueue#take()Ljava/lang/Object;"),
                queue::toString);

        String workload = SuggestWorkload.class.getName();
        Map<String, Suggestion> rest = suggest(MethodFilter.of(List.of(), List.of(workload + "**")));
        assertTrue(rest.keySet().stream().noneMatch(m -> m.startsWith(workload)), rest::toString);
    }

    @Test
    void aFileThatIsNoRecordingIsOneLineNamingIt(@TempDir Path tmp) throws Exception {
        Path junk = Files.writeString(tmp.resolve("junk.jfr"), "not a recording");
        IOException e = assertThrows(IOException.class,
                () -> new RecordingReader(new Tally(MethodFilter.application())).read(junk));
        assertTrue(e.getMessage().startsWith(junk + ": cannot read the flight recording: "), e.getMessage());
    }
}
