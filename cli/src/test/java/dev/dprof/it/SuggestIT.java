package dev.dprof.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.agent.config.ConfigLoader;
import dev.dprof.agent.config.RegionSpec;
import dev.dprof.examples.Cluster;
import dev.dprof.format.EventKind;
import dev.dprof.it.ExamplesIT.ProfileCheck;
import dev.dprof.it.ForkedJvm.Output;
import dev.dprof.it.ForkedJvm.Recording;
import dev.dprof.it.ForkedJvm.Running;
import dev.dprof.it.app.SuggestWorkload;
import dev.dprof.testsupport.Jdks;
import dev.dprof.testsupport.TestSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code dprof suggest} on the distributed K-Means as a user runs it: {@code dprof suggest -- -cp EXAMPLES
 * dev.dprof.examples.Cluster kmeans …}, so that the launcher and its three worker JVMs all record (each JVM the
 * command starts reads {@code JAVA_TOOL_OPTIONS}). The suggestion must hold the example's compute (the
 * assignment step its own YAML times) and its exchanges (the socket reads and writes of its links), be read by
 * the agent's loader as it is, and a run of the example with it must consolidate, with every thread's
 * assignment steps timed once per iteration and its TCP matched as with the example's own YAML.
 *
 * <p>{@code dprof suggest --pid PID --seconds N} on a running JVM ({@link SuggestWorkload}): the suggestion holds
 * its compute with its descriptor, and {@code dprof attach} with it weaves every region it names.
 */
class SuggestIT {
    static final String ASSIGN = "dev.dprof.examples.kmeans.DistributedKMeans$Worker#assign";

    @Test
    void kmeansSuggestionHoldsItsComputeAndExchangesAndARunWithItConsolidates(@TempDir Path tmp) throws Exception {
        Path yaml = tmp.resolve("suggested.yaml");
        Output suggest = null;
        for (int attempt = 1; attempt <= ExamplesIT.ATTEMPTS; attempt++) {
            suggest = ForkedJvm.dprof(tmp, "suggest", "--force", "--output", yaml, "--",
                    "-cp", ForkedJvm.codeSourceOf(Cluster.class), Cluster.class.getName(), "kmeans",
                    "--workers", ExamplesIT.WORKERS, "--threads", ExamplesIT.THREADS, "--iterations", 20,
                    "--", "--points", 100_000).runOk();
            if (suggest.stdout().stream().noneMatch(l -> l.contains(ExamplesIT.PORT_TAKEN))
                    && suggest.stderr().stream().noneMatch(l -> l.contains(ExamplesIT.PORT_TAKEN))) {
                break;
            }
        }
        Output done = suggest;
        String wrote = done.stdout().get(done.stdout().size() - 1);
        assertTrue(wrote.startsWith("dprof: wrote " + yaml + ": ") && wrote.endsWith(", 4 JVMs)"),
                () -> "the launcher and its three workers each recorded\n" + done);

        List<RegionSpec> regions = ConfigLoader.load(yaml).regions();
        List<String> methods = regions.stream().map(r -> r.classPattern() + "#" + r.methodPattern()).toList();
        assertTrue(methods.contains(ASSIGN), () -> "the compute: " + methods + "\n" + done);
        assertTrue(methods.stream().anyMatch(m -> m.startsWith("dev.dprof.examples.net.") && m.contains("#receive")),
                () -> "the exchanges' reads: " + methods);
        for (RegionSpec r : regions) {
            assertTrue(r.descriptor().isPresent() && !r.classPattern().contains("*"), r::toString);
        }

        // the suggestion as it is, on every worker: the run consolidates and its regions were recorded
        ProfileCheck p = ExamplesIT.runExample(tmp, "kmeans", yaml.toString(), "--points", "50000");
        String assign = regions.stream().filter(r -> (r.classPattern() + "#" + r.methodPattern()).equals(ASSIGN))
                .findFirst().orElseThrow().name();
        p.assertRegionCount(assign, EventKind.ENTER,
                (long) ExamplesIT.WORKERS * ExamplesIT.THREADS * ExamplesIT.ITERATIONS);
        p.assertRegionCount(assign, EventKind.EXIT,
                (long) ExamplesIT.WORKERS * ExamplesIT.THREADS * ExamplesIT.ITERATIONS);
        Optional<RegionSpec> receive = regions.stream().filter(r -> r.classPattern().startsWith("dev.dprof.examples.net.")
                && r.methodPattern().startsWith("receive")).findFirst();
        assertTrue(!p.events(receive.orElseThrow().name(), EventKind.ENTER).isEmpty(), p::describe);
        p.assertTcpMatched();
        p.assertAllMatched();
        assertEquals(0, p.info.causalityConflicts(), p::describe);
    }

    @Test
    void attachedForSecondsTheSuggestionHoldsTheComputeAndTheAgentWeavesEveryRegionOfIt(@TempDir Path tmp)
            throws Exception {
        Running app = ForkedJvm.app(SuggestWorkload.class, tmp).start();
        app.awaitLine("ready");
        Path yaml = tmp.resolve("attached.yaml");
        Output suggest = ForkedJvm.dprof(tmp, "suggest", "--pid", app.pid(), "--seconds", 3, "--output", yaml)
                .runOk();
        assertEquals(List.of("dprof: recording process " + app.pid() + " for 3 s"), suggest.dprofLines(),
                suggest::toString);
        List<RegionSpec> regions = ConfigLoader.load(yaml).regions();
        String workload = SuggestWorkload.class.getName();
        RegionSpec spin = regions.stream().filter(r -> r.classPattern().equals(workload)
                && r.methodPattern().equals("spin")).findFirst()
                .orElseThrow(() -> new AssertionError("no spin region in " + regions));
        assertEquals(Optional.of("(J)J"), spin.descriptor());

        // the agent attached with the suggestion as it is weaves every region of it
        Path out = tmp.resolve("out");
        Output attach = ForkedJvm.dprof(tmp, "attach", app.pid(), "--config", yaml, "--out", out).runOk();
        int n = regions.size();
        String woven = "dprof: woven \\d+ methods? in \\d+ class(es)? for " + n + " of " + n + " configured regions";
        assertTrue(attach.stdout().get(1).matches(woven), attach::toString);
        app.println("stop");
        Output end = app.await();
        assertEquals(0, end.exitCode(), end::toString);
        Recording run = Recording.readOnly(out);
        run.requireCleanEnd();
        assertTrue(run.count(spin.name(), EventKind.ENTER) > 0, "a whole round ran after the attach");
        assertEquals(run.count(spin.name(), EventKind.ENTER), run.count(spin.name(), EventKind.EXIT));
    }

    @Test
    void aCommandOnTheModernJdkEndedAfterSecondsLeavesItsRecording(@TempDir Path tmp) throws Exception {
        Path java = Jdks.modern().resolve("bin").resolve("java");
        Path yaml = tmp.resolve("modern.yaml");
        // the workload runs until a line on stdin that never comes: --seconds ends it, and it writes its recording
        Output suggest = ForkedJvm.dprof(tmp, "suggest", "--seconds", 4, "--output", yaml, "--", java, "-cp",
                TestSettings.testClasspath(), SuggestWorkload.class.getName()).runOk();
        assertTrue(suggest.stdout().contains("ready"), suggest::toString);
        String wrote = suggest.stdout().get(suggest.stdout().size() - 1);
        assertTrue(wrote.startsWith("dprof: wrote " + yaml + ": ") && wrote.endsWith(", 1 JVMs)"), suggest::toString);
        List<RegionSpec> regions = ConfigLoader.load(yaml).regions();
        assertTrue(regions.stream().anyMatch(r -> r.classPattern().equals(SuggestWorkload.class.getName())
                && r.methodPattern().equals("spin") && r.descriptor().equals(Optional.of("(J)J"))), regions::toString);
        String text = Files.readString(yaml);
        assertTrue(text.contains(", ended after 4 s:"), text);
    }

    @Test
    void aProcessThatIsGoneIsOneLine(@TempDir Path tmp) throws Exception {
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        Output suggest = ForkedJvm.dprof(tmp, "suggest", "--pid", gone.pid(), "--seconds", 1, "--output",
                tmp.resolve("x.yaml")).run();
        assertEquals(1, suggest.exitCode(), suggest::toString);
        assertEquals(List.of("dprof: no such process: " + gone.pid()), suggest.stderr());
    }
}
