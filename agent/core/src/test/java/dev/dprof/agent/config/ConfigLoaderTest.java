package dev.dprof.agent.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.dprof.agent.config.ValueSource.Arg;
import dev.dprof.agent.config.ValueSource.Const;
import dev.dprof.agent.config.ValueSource.Field;
import dev.dprof.agent.config.ValueSource.Getter;
import dev.dprof.agent.config.ValueSource.Property;
import dev.dprof.agent.config.ValueSource.Return;
import dev.dprof.format.CollectiveFlavour;
import dev.dprof.settings.DprofSettings;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Files that are valid: what they parse to. */
class ConfigLoaderTest {

    static String resource(String name) throws IOException {
        try (InputStream in = ConfigLoaderTest.class.getResourceAsStream("/config/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static AgentConfig parse(String yaml) throws ConfigException {
        return ConfigLoader.parse(yaml, "dprof.yaml");
    }

    private static RegionSpec region(String name, String cls, String method, Optional<String> descriptor,
                                     RegionKind kind, OptionalInt id, Optional<ValueSource> channel,
                                     Optional<ValueSource> key, Optional<ValueSource> participants,
                                     Optional<ValueSource> instance, int line) {
        return new RegionSpec(name, cls, method, descriptor, kind, id, channel, key, participants, instance, line);
    }

    @Test
    void fullExampleParsesToTheExpectedRecords(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("dprof.yaml");
        Files.writeString(file, resource("full.yaml"));
        AgentConfig c = ConfigLoader.load(file);

        List<RegionSpec> expected = List.of(
                region("Worker#compute", "com.example.Worker", "compute", Optional.of("(I)V"), RegionKind.PLAIN,
                        OptionalInt.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
                        Optional.of(new Property(DprofSettings.RANK_PROPERTY)), 16),
                region("Channel#send", "com.example.net.Channel", "send", Optional.empty(), RegionKind.SEND,
                        OptionalInt.of(12), Optional.of(new Arg(0)),
                        Optional.of(new Getter(OptionalInt.of(1), "seq")), Optional.empty(), Optional.empty(), 22),
                region("Channel#receive", "com.example.net.Channel", "receive",
                        Optional.of("(Ljava/lang/String;)Lcom/example/net/Message;"), RegionKind.RECEIVE,
                        OptionalInt.empty(), Optional.of(new Arg(0)), Optional.of(new Return()), Optional.empty(),
                        Optional.empty(), 30),
                region("Mailbox#take", "com.example.net.Mailbox", "take", Optional.empty(), RegionKind.RECEIVE,
                        OptionalInt.empty(), Optional.of(new Const("Mailbox#take")),
                        Optional.of(new Field(OptionalInt.empty(), "lastSeq")), Optional.empty(), Optional.empty(),
                        38),
                region("Phaser#await", "com.example.sync.Phaser", "await", Optional.empty(), RegionKind.BARRIER,
                        OptionalInt.empty(), Optional.empty(), Optional.of(new Field(OptionalInt.empty(), "generation")),
                        Optional.of(new Property(DprofSettings.PARTICIPANTS_PROPERTY)), Optional.empty(), 44),
                region("Latch#countDown", "com.example.sync.Latch", "countDown", Optional.empty(),
                        RegionKind.BARRIER, OptionalInt.empty(), Optional.empty(), Optional.of(new Const("startup")),
                        Optional.of(new Const("4")), Optional.empty(), 51),
                region("Solver#step", "com.example.sim.**", "step*", Optional.empty(), RegionKind.PROGRESS,
                        OptionalInt.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
                        Optional.of(new Arg(0)), 58),
                region("Worker.Job#new", "com.example.Worker$Job", "<init>", Optional.empty(), RegionKind.PLAIN,
                        OptionalInt.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
                        64));

        AgentConfig want = new AgentConfig(1, Path.of("runs/dprof"), ClockChoice.RDTSCP, 2, 131072, false,
                List.of("com.example.generated.**", "com.example.*Proxy"),
                Optional.of(new CalibrationSpec("calib.example.org", 7077, 30,
                        Optional.of(Path.of("/etc/dprof/calibration.key")), false)), expected);
        for (int i = 0; i < expected.size(); i++) {
            assertEquals(expected.get(i), c.regions().get(i), "region " + i);
        }
        assertEquals(want, c);
    }

    @Test
    void exampleInDocsParses() throws Exception {
        // The first yaml block of docs/CONFIG.md is the documented example; it must stay valid and show the defaults.
        Path doc = Path.of("../../docs/CONFIG.md");
        assumeTrue(Files.exists(doc), "run from agent/core (as Maven does)");
        String md = Files.readString(doc);
        int start = md.indexOf("```yaml\n");
        assertTrue(start >= 0, "CONFIG.md has a yaml example");
        String yaml = md.substring(start + 8, md.indexOf("```", start + 8));
        AgentConfig c = ConfigLoader.parse(yaml, "CONFIG.md");
        AgentConfig d = AgentConfig.defaults();
        assertEquals(List.of(d.version(), d.out(), d.clock(), d.drainIntervalMs(), d.ringEvents(), d.annotations()),
                List.of(c.version(), c.out(), c.clock(), c.drainIntervalMs(), c.ringEvents(), c.annotations()));
        assertEquals(Optional.of(new CalibrationSpec("calib.example.org", 7077, CalibrationSpec.DEFAULT_INTERVAL_SEC,
                Optional.of(Path.of("/etc/dprof/calibration.key")), false)), c.calibration());
        assertEquals(List.of(RegionKind.PLAIN, RegionKind.SEND, RegionKind.RECEIVE, RegionKind.BARRIER,
                RegionKind.COLLECTIVE, RegionKind.PROGRESS, RegionKind.PLAIN),
                c.regions().stream().map(RegionSpec::kind).toList());
        assertEquals(CollectiveFlavour.ONE_TO_N, c.regions().get(4).collective().orElseThrow().flavour());
    }

    @Test
    void emptyFileGivesDefaults(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("empty.yaml");
        Files.writeString(file, "");
        assertEquals(AgentConfig.defaults(), ConfigLoader.load(file));
    }

    @Test
    void commentsOnlyOrBareDocumentGiveDefaults() throws Exception {
        assertEquals(AgentConfig.defaults(), parse("# nothing here yet\n\n   # still nothing\n"));
        assertEquals(AgentConfig.defaults(), parse("---\n"));
        assertEquals(AgentConfig.defaults(), parse("\uFEFF# with a byte order mark\n"));
        assertEquals(AgentConfig.defaults(), parse("~\n"));
    }

    @Test
    void defaultsAreTheDocumentedOnes() {
        AgentConfig d = AgentConfig.defaults();
        assertEquals(1, d.version());
        assertEquals(Path.of("dprof-runs"), d.out());
        assertEquals(ClockChoice.TSC, d.clock());
        assertEquals(5, d.drainIntervalMs());
        assertEquals(65536, d.ringEvents());
        assertTrue(d.annotations());
        assertEquals(List.of(), d.exclude());
        assertEquals(Optional.empty(), d.calibration());
        assertEquals(List.of(), d.regions());
    }

    @Test
    void statisticsModeWithItsIntervalAndATraceByDefault() throws Exception {
        AgentConfig d = AgentConfig.defaults();
        assertEquals(RecordingMode.TRACE, d.mode());
        assertEquals(AgentConfig.DEFAULT_STATISTICS_INTERVAL_MS, d.statisticsIntervalMs());
        AgentConfig c = parse("mode: statistics\nstatisticsIntervalMs: 250\n");
        assertEquals(RecordingMode.STATISTICS, c.mode());
        assertEquals(250, c.statisticsIntervalMs());
        assertEquals(RecordingMode.STATISTICS, c.withOut(Path.of("x")).withHandoffs(Set.of()).mode(), "kept by the overrides");
        assertEquals(RecordingMode.STATISTICS, parse("mode: statistics\n").mode());
        assertEquals(AgentConfig.DEFAULT_STATISTICS_INTERVAL_MS, parse("mode: statistics\n").statisticsIntervalMs());
        assertEquals(Optional.empty(), c.traceWindows());
        assertEquals(Optional.of(new TraceWindows(600_000, 10_000)),
                parse("mode: statistics\ntraceWindows: {every: 10m, length: 10s}\n").traceWindows());
        assertEquals(Optional.of(new TraceWindows(3_600_000, 500)),
                parse("mode: statistics\ntraceWindows: {every: 1h, length: 500ms}\n").withOut(Path.of("x")).traceWindows());
    }

    @Test
    void partialFileKeepsOtherDefaults() throws Exception {
        AgentConfig c = parse("clock: nanotime\nregions: []\nexclude:\n");
        AgentConfig d = AgentConfig.defaults();
        assertEquals(new AgentConfig(d.version(), d.out(), ClockChoice.NANOTIME, d.drainIntervalMs(),
                d.ringEvents(), d.annotations(), d.exclude(), d.calibration(), d.regions()), c);
    }

    @Test
    void calibrationIntervalDefaultsAndIpv6() throws Exception {
        assertEquals(Optional.of(new CalibrationSpec("10.0.0.7", 9000, 10)),
                parse("calibration:\n  base: 10.0.0.7:9000\n").calibration());
        assertEquals(Optional.of(new CalibrationSpec("::1", 65535, 1)),
                parse("calibration: {base: \"[::1]:65535\", intervalSec: 1}\n").calibration());
        assertEquals(Optional.empty(), parse("calibration:\n").calibration());
    }

    @Test
    void calibrationKeyFileOrExplicitlyInsecure() throws Exception {
        assertEquals(Optional.of(new CalibrationSpec("h", 1, 10, Optional.of(Path.of("keys/cal.key")), false)),
                parse("calibration: {base: \"h:1\", keyFile: keys/cal.key}\n").calibration());
        assertEquals(Optional.of(new CalibrationSpec("h", 1, 10, Optional.empty(), true)),
                parse("calibration: {base: \"h:1\", insecure: true}\n").calibration());
        assertEquals(Optional.of(new CalibrationSpec("h", 1, 10)),
                parse("calibration: {base: \"h:1\", insecure: false}\n").calibration());
    }

    @Test
    void shorthandsAndSpellings() throws Exception {
        AgentConfig c = parse("""
                ringEvents: 0x1_0000
                annotations: off
                clock: RDTSC
                regions:
                  - {name: s, class: a.B, method: m, kind: SEND, key: {arg: 0}, channel: orders}
                  - name: b
                    class: a.B
                    method: n
                    kind: barrier
                    key: {arg: 0}
                    participants: {const: 0x10}
                  - name: r
                    class: a.B
                    method: r
                    kind: receive
                    channel: {arg: 1, getter: topic}
                    key: {arg: 2, field: id}
                """);
        assertEquals(65536, c.ringEvents());
        assertEquals(false, c.annotations());
        assertEquals(ClockChoice.RDTSC, c.clock());
        assertEquals(Optional.of(new Const("orders")), c.regions().get(0).channel());
        assertEquals(Optional.of(new Const("16")), c.regions().get(1).participants());
        assertEquals(Optional.of(new Getter(OptionalInt.of(1), "topic")), c.regions().get(2).channel());
        assertEquals(Optional.of(new Field(OptionalInt.of(2), "id")), c.regions().get(2).key());
        assertEquals(5, c.regions().get(0).line());
        assertEquals(6, c.regions().get(1).line());
    }

    @Test
    void collectivesTakeAFlavourAndTheRanksItNeeds() throws Exception {
        AgentConfig c = parse("""
                regions:
                  - {name: all, class: a.B, method: all, kind: collective, flavour: allreduce, key: {arg: 0},
                     participants: 4}
                  - {name: bcast, class: a.B, method: bcast, kind: collective, flavour: Scatter, key: {arg: 0},
                     participants: {property: n}, rank: {property: rank}, root: 0}
                  - {name: gather, class: a.B, method: gather, kind: collective, flavour: gather, key: {arg: 0},
                     participants: 4, rank: {field: rank}, root: {arg: 1}}
                  - {name: exscan, class: a.B, method: exscan, kind: collective, flavour: exscan, key: {arg: 0},
                     participants: 4, rank: {const: 3}}
                """);
        assertEquals(Optional.of(new RegionSpec.Collective(CollectiveFlavour.N_TO_N, Optional.empty(), Optional.empty())),
                c.regions().get(0).collective());
        assertEquals(Optional.of(new RegionSpec.Collective(CollectiveFlavour.ONE_TO_N,
                Optional.of(new Property("rank")), Optional.of(new Const("0")))), c.regions().get(1).collective());
        assertEquals(Optional.of(new RegionSpec.Collective(CollectiveFlavour.N_TO_ONE,
                        Optional.of(new Field(OptionalInt.empty(), "rank")), Optional.of(new Arg(1)))),
                c.regions().get(2).collective());
        assertEquals(Optional.of(new RegionSpec.Collective(CollectiveFlavour.EXSCAN, Optional.of(new Const("3")),
                Optional.empty())), c.regions().get(3).collective());
        assertEquals(RegionKind.COLLECTIVE, c.regions().get(3).kind());
        assertEquals(Optional.of(new Const("4")), c.regions().get(3).participants());
    }

    @Test
    void aBarrierIsNoCollectiveRegion() throws Exception {
        AgentConfig c = parse("regions:\n  - {name: b, class: a.B, method: m, kind: barrier, key: {arg: 0}, participants: 2}\n");
        assertEquals(Optional.empty(), c.regions().get(0).collective());
    }

    @Test
    void anchorsAndMergeKeysWork() throws Exception {
        AgentConfig c = parse("""
                regions:
                  - &send
                    name: send-a
                    class: com.example.A
                    method: send
                    kind: send
                    key: &seq {arg: 1, getter: seq}
                  - <<: *send
                    name: send-b
                    class: com.example.B
                  - name: recv
                    class: com.example.A
                    method: receive
                    kind: receive
                    key: *seq
                """);
        RegionSpec a = c.regions().get(0);
        RegionSpec b = c.regions().get(1);
        assertEquals("send-b", b.name());
        assertEquals("com.example.B", b.classPattern());
        assertEquals("send", b.methodPattern());
        assertEquals(RegionKind.SEND, b.kind());
        assertEquals(a.key(), b.key());
        assertEquals(Optional.of(new Const("send-b")), b.channel());
        assertEquals(8, b.line());
        assertEquals(a.key(), c.regions().get(2).key());
    }

    @Test
    void recordsAreImmutable() throws Exception {
        AgentConfig c = parse("exclude: [a.B]\nregions: [{name: x, class: a.B, method: m}]\n");
        assertThrows(UnsupportedOperationException.class, () -> c.exclude().add("x"));
        assertThrows(UnsupportedOperationException.class, () -> c.regions().clear());
    }

    @Test
    void withOutReplacesOnlyTheOutputDirectory() {
        AgentConfig d = AgentConfig.defaults();
        AgentConfig o = d.withOut(Path.of("/tmp/x"));
        assertEquals(Path.of("/tmp/x"), o.out());
        assertEquals(d, o.withOut(Path.of("dprof-runs")));
    }
}
