package dev.dprof.agent.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every kind of bad input gives one ConfigException with one exact line naming the file and the line. */
class ConfigErrorsTest {

    /** Asserts that {@code yaml}, read as dprof.yaml, fails with exactly {@code message}. */
    static void fails(String yaml, String message) {
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.parse(yaml, "dprof.yaml"));
        assertEquals(message, e.getMessage());
        assertFalse(e.getMessage().contains("\n"), "one line");
    }

    /** A region entry of the given kind with the given extra lines (each indented by 4). */
    static String region(String kind, String... extra) {
        StringBuilder sb = new StringBuilder("regions:\n  - name: r\n    class: com.example.A\n    method: run\n");
        if (kind != null) {
            sb.append("    kind: ").append(kind).append('\n');
        }
        for (String line : extra) {
            sb.append("    ").append(line).append('\n');
        }
        return sb.toString();
    }

    @Nested
    class FileAccess {
        @Test
        void missingFile(@TempDir Path dir) {
            Path file = dir.resolve("dprof.yaml");
            ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.load(file));
            assertEquals(file + ": config file not found", e.getMessage());
        }

        @Test
        void directoryGiven(@TempDir Path dir) {
            ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.load(dir));
            assertEquals(dir + ": cannot read config file: is a directory", e.getMessage());
        }

        @Test
        void unreadableFile(@TempDir Path dir) throws Exception {
            Path file = dir.resolve("dprof.yaml");
            Files.writeString(file, "clock: rdtsc\n");
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("---------"));
            assumeFalse(Files.isReadable(file), "running as root: permissions are not enforced");
            ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.load(file));
            assertEquals(file + ": cannot read config file: permission denied", e.getMessage());
        }

        @Test
        void hugeFile(@TempDir Path dir) throws Exception {
            Path file = dir.resolve("dprof.yaml");
            Files.write(file, ("#" + "x".repeat(ConfigLoader.MAX_CHARS)).getBytes());
            ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.load(file));
            assertEquals(file + ": config file is too large (1048577 bytes, limit 1048576)", e.getMessage());
        }

        @Test
        void hugeText() {
            fails("#" + "x".repeat(ConfigLoader.MAX_CHARS),
                    "dprof.yaml: config file is too large (1048577 characters, limit 1048576)");
        }

        @Test
        void notUtf8(@TempDir Path dir) throws Exception {
            Path file = dir.resolve("dprof.yaml");
            Files.write(file, new byte[] {'o', 'u', 't', ':', ' ', (byte) 0xff, '\n'});
            ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.load(file));
            assertEquals(file + ": cannot read config file: not valid UTF-8 text", e.getMessage());
        }

        @Test
        void fileErrorsNameTheFileAsGiven(@TempDir Path dir) throws Exception {
            Path file = dir.resolve("conf.yaml");
            Files.writeString(file, "clock: rdtsc\nclock: rdtscp\n");
            ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.load(file));
            assertEquals(file + ":2: duplicate key 'clock' (first at line 1)", e.getMessage());
        }
    }

    @Nested
    class YamlText {
        @Test
        void syntaxErrorHasTheLineOfTheProblem() {
            fails("clock: rdtsc\nout: a: b\n", "dprof.yaml:2: YAML syntax error: mapping values are not allowed here");
        }

        @Test
        void unclosedFlowList() {
            fails("version: 1\nexclude: [a.B, c.D\n",
                    "dprof.yaml:3: YAML syntax error: expected ',' or ']', but got <stream end>"
                            + " (while parsing a flow sequence at line 2)");
        }

        @Test
        void badIndentation() {
            fails("regions:\n  - name: a\n     class: b\n",
                    "dprof.yaml:3: YAML syntax error: mapping values are not allowed here");
        }

        @Test
        void tabIndentation() {
            fails("regions:\n\t- name: a\n",
                    "dprof.yaml:2: YAML syntax error: found character '\\t(TAB)' that cannot start any token."
                            + " (Do not use \\t(TAB) for indentation)");
        }

        @Test
        void twoDocuments() {
            fails("clock: rdtsc\n---\nclock: rdtscp\n",
                    "dprof.yaml:2: only one YAML document is allowed (found a second '---' document)");
        }

        @Test
        void undefinedAlias() {
            fails("exclude: *nowhere\n", "dprof.yaml:1: YAML syntax error: found undefined alias nowhere");
        }

        @Test
        void controlCharacter() {
            fails("clock: rdtsc\nout: a\u0007b\n",
                    "dprof.yaml:2: invalid character U+0007 (YAML does not allow it here)");
        }

        @Test
        void duplicateTopLevelKey() {
            fails("clock: rdtsc\nout: a\nclock: nanotime\n", "dprof.yaml:3: duplicate key 'clock' (first at line 1)");
        }

        @Test
        void duplicateKeyInRegion() {
            fails(region("send", "key: {arg: 0}", "kind: receive"),
                    "dprof.yaml:7: regions[0]: duplicate key 'kind' (first at line 5)");
        }

        @Test
        void duplicateKeyInValueSource() {
            fails(region("send", "key: {arg: 0, arg: 1}"),
                    "dprof.yaml:6: regions[0].key: duplicate key 'arg' (first at line 6)");
        }

        @Test
        void tooManyAliasesBillionLaughs() {
            StringBuilder sb = new StringBuilder("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
            for (int i = 1; i <= 9; i++) {
                sb.append("a").append(i).append(": &a").append(i).append(" [");
                for (int j = 0; j < 10; j++) {
                    sb.append(j == 0 ? "" : ", ").append("*a").append(i - 1);
                }
                sb.append("]\n");
            }
            fails(sb.toString(), "dprof.yaml:8: too many aliases to lists or mappings (more than 64)");
        }

        @Test
        void mergeKeyBombIsCheap() {
            // 16 levels of 4 aliases each (64, the limit): 4^16 merges if merged mappings were flattened each time.
            StringBuilder sb = new StringBuilder("regions:\n  - <<: [&m0 {name: x}");
            for (int i = 1; i <= 16; i++) {
                String a = "*m" + (i - 1);
                sb.append(", &m").append(i).append(" {<<: [").append(String.join(", ", a, a, a, a)).append("]}");
            }
            sb.append("]\n");
            assertTimeoutPreemptively(Duration.ofSeconds(5), () -> fails(sb.toString(),
                    "dprof.yaml:2: regions[0]: missing required key 'class'"));
        }

        @Test
        void recursiveAlias() {
            fails("version: 1\nregions: &r\n  - *r\n",
                    "dprof.yaml:3: recursive alias '*r' (it refers to a list or mapping that contains it)");
        }

        @Test
        void recursiveMergeKey() {
            fails("regions:\n  - &x\n    name: a\n    <<: *x\n",
                    "dprof.yaml:4: recursive alias '*x' (it refers to a list or mapping that contains it)");
        }

        @Test
        void tooDeep() {
            fails("exclude: " + "[".repeat(20) + "]".repeat(20) + "\n",
                    "dprof.yaml:1: YAML nesting is too deep (more than 16 levels)");
        }

        @Test
        void localTag() {
            fails("clock: rdtsc\nout: !env DPROF_OUT\n", "dprof.yaml:2: unsupported YAML tag '!env'");
        }

        @Test
        void objectTag() {
            fails("out: !!javax.script.ScriptEngineManager [x]\n",
                    "dprof.yaml:1: unsupported YAML tag '!!javax.script.ScriptEngineManager'");
        }

        @Test
        void badMergeValue() {
            fails(region(null, "<<: 3"),
                    "dprof.yaml:5: regions[0]: '<<' (merge) expects a mapping or a list of mappings, found '3'");
        }
    }

    @Nested
    class TopLevel {
        @Test
        void notAMapping() {
            fails("- clock: rdtsc\n",
                    "dprof.yaml:1: the top level must be a mapping of options (version, out, clock, ...), found a list");
        }

        @Test
        void aScalar() {
            fails("# config\nrdtsc\n",
                    "dprof.yaml:2: the top level must be a mapping of options (version, out, clock, ...), found 'rdtsc'");
        }

        @Test
        void traceWindowsNeedStatisticsModeAndTwoDurations() {
            fails("traceWindows: {every: 10m, length: 10s}\n",
                    "dprof.yaml:1: traceWindows: trace windows need mode: statistics (a trace records every event already)");
            fails("mode: statistics\ntraceWindows: {every: 10 minutes, length: 10s}\n",
                    "dprof.yaml:2: traceWindows.every: expected a duration such as 500ms, 10s, 10m or 1h, found '10 minutes'");
            fails("mode: statistics\ntraceWindows: {every: 10s, length: 10s}\n",
                    "dprof.yaml:2: traceWindows.length: a trace window must be shorter than its period (10000 ms every 10000 ms)");
            fails("mode: statistics\ntraceWindows: {every: 10s}\n",
                    "dprof.yaml:2: traceWindows: missing required key 'length' (e.g. {every: 10m, length: 10s})");
        }

        @Test
        void unknownModeAndAnIntervalOutOfRange() {
            fails("mode: stats\n", "dprof.yaml:1: mode: unknown mode 'stats' (expected one of trace, statistics)");
            fails("mode: statistics\nstatisticsIntervalMs: 5\n",
                    "dprof.yaml:2: statisticsIntervalMs: 5 is out of range (expected 10..3600000)");
        }

        @Test
        void unknownKey() {
            fails("clock: rdtsc\nregons: []\n",
                    "dprof.yaml:2: unknown key 'regons' (expected one of version, out, clock, drainIntervalMs,"
                            + " ringEvents, annotations, exclude, calibration, handoffs, regions, diskReserveMiB, mode,"
                            + " statisticsIntervalMs, traceWindows)");
        }

        @Test
        void complexKey() {
            fails("? [a, b]\n: 1\n", "dprof.yaml:1: expected a key name, found a list");
        }

        @Test
        void unknownVersion() {
            fails("version: 2\n", "dprof.yaml:1: version: unsupported config version 2 (only version 1 is known)");
        }

        @Test
        void versionNotANumber() {
            fails("version: one\n", "dprof.yaml:1: version: expected an integer, found 'one'");
        }

        @Test
        void outNotAString() {
            fails("out: [a, b]\n", "dprof.yaml:1: out: expected a string, found a list");
        }

        @Test
        void outEmpty() {
            fails("out: \"\"\n", "dprof.yaml:1: out: must not be empty");
        }

        @Test
        void outInvalidPath() {
            fails("out: \"a\\0b\"\n", "dprof.yaml:1: out: invalid path 'a\\u0000b': Nul character not allowed");
        }

        @Test
        void unknownClock() {
            fails("clock: hpet\n", "dprof.yaml:1: clock: unknown clock 'hpet' (expected one of tsc, rdtsc, rdtscp, nanotime)");
        }

        /** rdtsc and rdtscp name x86 instructions: elsewhere they are an error, tsc is the CPU's counter. */
        @Test
        void x86ClockNamesOnlyOnX86() {
            assertEquals(null, ClockChoice.RDTSC.problemOn("amd64"));
            assertEquals(null, ClockChoice.RDTSCP.problemOn("x86_64"));
            assertEquals(null, ClockChoice.TSC.problemOn("aarch64"));
            assertEquals(null, ClockChoice.NANOTIME.problemOn("aarch64"));
            assertEquals("'rdtsc' is an x86 instruction and this machine is aarch64 (use 'tsc', the CPU's own counter,"
                    + " or 'nanotime')", ClockChoice.RDTSC.problemOn("aarch64"));
            assertEquals("'rdtscp' is an x86 instruction and this machine is aarch64 (use 'tsc', the CPU's own counter,"
                    + " or 'nanotime')", ClockChoice.RDTSCP.problemOn("aarch64"));
        }

        /** The loader reports it at the clock's line (on x86-64 the alias loads as before). */
        @Test
        void x86ClockNameOnThisMachine() throws Exception {
            String arch = System.getProperty("os.arch");
            String yaml = "out: x\nclock: rdtsc\n";
            if (arch.equals("amd64") || arch.equals("x86_64")) {
                assertEquals(ClockChoice.RDTSC, ConfigLoader.parse(yaml, "dprof.yaml").clock());
            } else {
                fails(yaml, "dprof.yaml:2: clock: " + ClockChoice.RDTSC.problemOn(arch));
            }
        }

        @Test
        void clockMissingValue() {
            fails("clock:\n", "dprof.yaml:1: clock: expected one of tsc, rdtsc, rdtscp, nanotime, found nothing");
        }

        @Test
        void drainIntervalWrongType() {
            fails("drainIntervalMs: fast\n", "dprof.yaml:1: drainIntervalMs: expected an integer, found 'fast'");
        }

        @Test
        void drainIntervalFloat() {
            fails("drainIntervalMs: 2.5\n", "dprof.yaml:1: drainIntervalMs: expected an integer, found '2.5'");
        }

        @Test
        void diskReserveBelowWhatTheQueueNeeds() {
            fails("diskReserveMiB: 1\n", "dprof.yaml:1: diskReserveMiB: 1 is out of range (expected 8..1048576)");
        }

        @Test
        void diskReserveGiven() throws Exception {
            assertEquals(64L << 20, ConfigLoader.parse("diskReserveMiB: 64\n", "dprof.yaml").diskReserveBytes());
            assertEquals(-1, ConfigLoader.parse("{}\n", "dprof.yaml").diskReserveBytes());
        }

        @Test
        void drainIntervalTooSmall() {
            fails("drainIntervalMs: 0\n", "dprof.yaml:1: drainIntervalMs: 0 is out of range (expected 1..10)");
        }

        @Test
        void drainIntervalTooLarge() {
            fails("drainIntervalMs: 11\n", "dprof.yaml:1: drainIntervalMs: 11 is out of range (expected 1..10)");
        }

        @Test
        void drainIntervalHuge() {
            fails("drainIntervalMs: 99999999999999999999\n",
                    "dprof.yaml:1: drainIntervalMs: 99999999999999999999 is out of range (expected 1..10)");
        }

        @Test
        void leadingZero() {
            fails("drainIntervalMs: 05\n",
                    "dprof.yaml:1: drainIntervalMs: expected an integer, found '05' (leading zeros are not allowed)");
        }

        @Test
        void ringEventsNotPowerOfTwo() {
            fails("ringEvents: 100000\n",
                    "dprof.yaml:1: ringEvents: 100000 is not a power of two (expected a power of two in 1024..16777216)");
        }

        @Test
        void ringEventsTooSmall() {
            fails("ringEvents: 512\n",
                    "dprof.yaml:1: ringEvents: 512 is out of range (expected a power of two in 1024..16777216)");
        }

        @Test
        void ringEventsTooLarge() {
            fails("ringEvents: 33554432\n",
                    "dprof.yaml:1: ringEvents: 33554432 is out of range (expected a power of two in 1024..16777216)");
        }

        @Test
        void annotationsNotABoolean() {
            fails("annotations: maybe\n", "dprof.yaml:1: annotations: expected true or false, found 'maybe'");
        }

        @Test
        void excludeNotAList() {
            fails("exclude: com.example.**\n", "dprof.yaml:1: exclude: expected a list, found 'com.example.**'");
        }

        @Test
        void excludeItemNotAString() {
            fails("exclude:\n  - com.a.B\n  - {x: 1}\n", "dprof.yaml:3: exclude[1]: expected a string, found a mapping");
        }

        @Test
        void excludeInvalidPattern() {
            fails("exclude: [\"com..B\"]\n", "dprof.yaml:1: exclude[0]: invalid class pattern 'com..B': empty package segment");
        }

        @Test
        void regionsNotAList() {
            fails("regions:\n  name: a\n", "dprof.yaml:2: regions: expected a list, found a mapping");
        }

        @Test
        void regionNotAMapping() {
            fails("regions:\n  - Worker#compute\n", "dprof.yaml:2: regions[0]: expected a mapping, found 'Worker#compute'");
        }

        @Test
        void valueIsQuotedAndEscapedAndCut() {
            fails("clock: \"a\\nb" + "c".repeat(100) + "\"\n",
                    "dprof.yaml:1: clock: unknown clock 'a\\nb" + "c".repeat(57) + "...' (expected one of tsc,"
                            + " rdtsc, rdtscp, nanotime)");
        }
    }

    @Nested
    class Calibration {
        @Test
        void notAMapping() {
            fails("calibration: [a, b]\n", "dprof.yaml:1: calibration: expected a mapping, found a list");
        }

        @Test
        void unknownKey() {
            fails("calibration:\n  base: h:1\n  interval: 5\n",
                    "dprof.yaml:3: calibration: unknown key 'interval' (expected one of base, intervalSec, keyFile, insecure)");
        }

        @Test
        void missingBase() {
            fails("calibration:\n  intervalSec: 5\n",
                    "dprof.yaml:2: calibration: missing required key 'base' (host:port of the calibration base)");
        }

        @Test
        void noPort() {
            fails("calibration: {base: calib.example.org}\n",
                    "dprof.yaml:1: calibration.base: expected host:port, found 'calib.example.org' (no port)");
        }

        @Test
        void emptyPort() {
            fails("calibration: {base: \"calib:\"}\n",
                    "dprof.yaml:1: calibration.base: expected host:port, found 'calib:' (no port)");
        }

        @Test
        void noHost() {
            fails("calibration: {base: \":9000\"}\n",
                    "dprof.yaml:1: calibration.base: expected host:port, found ':9000' (no host)");
        }

        @Test
        void portOutOfRange() {
            fails("calibration:\n  base: calib:70000\n",
                    "dprof.yaml:2: calibration.base: port 70000 is out of range (expected 1..65535)");
        }

        @Test
        void portZero() {
            fails("calibration:\n  base: calib:0\n",
                    "dprof.yaml:2: calibration.base: port 0 is out of range (expected 1..65535)");
        }

        @Test
        void portNotANumber() {
            fails("calibration:\n  base: calib:http\n",
                    "dprof.yaml:2: calibration.base: port 'http' is not a number 1..65535");
        }

        @Test
        void bareIpv6() {
            fails("calibration:\n  base: \"::1:9000\"\n",
                    "dprof.yaml:2: calibration.base: write an IPv6 address as [address]:port, found '::1:9000'");
        }

        @Test
        void hostWithSpace() {
            fails("calibration:\n  base: \"my host:9000\"\n", "dprof.yaml:2: calibration.base: invalid host 'my host'");
        }

        @Test
        void keyFileAndInsecureTogether() {
            fails("calibration:\n  base: h:1\n  keyFile: k\n  insecure: true\n",
                    "dprof.yaml:4: calibration.insecure: insecure: true and a keyFile exclude each other (a key "
                            + "authenticates the calibration; insecure runs without one)");
        }

        @Test
        void emptyKeyFile() {
            fails("calibration:\n  base: h:1\n  keyFile: \"\"\n", "dprof.yaml:3: calibration.keyFile: must not be empty");
        }

        @Test
        void intervalNotPositive() {
            fails("calibration:\n  base: h:1\n  intervalSec: 0\n",
                    "dprof.yaml:3: calibration.intervalSec: 0 is out of range (expected 1..2147483647)");
        }
    }

    @Nested
    class Regions {
        @Test
        void unknownKey() {
            fails("regions:\n  - name: a\n    class: com.example.A\n    methd: run\n",
                    "dprof.yaml:4: regions[0]: unknown key 'methd' (expected one of name, class, method, descriptor,"
                            + " kind, id, channel, key, participants, instance, flavour, rank, root, side)");
        }

        @Test
        void missingName() {
            fails("regions:\n  - class: com.example.A\n    method: run\n",
                    "dprof.yaml:2: regions[0]: missing required key 'name'");
        }

        @Test
        void missingClass() {
            fails("regions:\n  - name: a\n    method: run\n", "dprof.yaml:2: regions[0]: missing required key 'class'");
        }

        @Test
        void missingMethod() {
            fails("regions:\n  - {name: a, class: com.example.A}\n  - name: b\n    class: com.example.A\n",
                    "dprof.yaml:2: regions[0]: missing required key 'method'");
        }

        @Test
        void emptyName() {
            fails("regions:\n  - name: ''\n    class: com.example.A\n    method: run\n",
                    "dprof.yaml:2: regions[0].name: must not be empty");
        }

        @Test
        void nameIsAList() {
            fails("regions:\n  - name: [a]\n    class: com.example.A\n    method: run\n",
                    "dprof.yaml:2: regions[0].name: expected a string, found a list");
        }

        @Test
        void duplicateName() {
            fails("regions:\n"
                            + "  - {name: Worker#compute, class: a.A, method: m}\n"
                            + "  - {name: other, class: a.A, method: n}\n"
                            + "  - name: Worker#compute\n"
                            + "    class: a.B\n"
                            + "    method: m\n",
                    "dprof.yaml:4: regions[2].name: duplicate region name 'Worker#compute' (first defined at line 2)");
        }

        @Test
        void duplicateNameOfAnotherKindNamesBothKinds() {
            fails("regions:\n"
                            + "  - {name: ack, class: a.A, method: m}\n"
                            + "  - {name: ack, class: a.B, method: n, kind: send, key: {arg: 0}}\n",
                    "dprof.yaml:3: regions[1].name: duplicate region name 'ack' (first defined at line 2 as kind plain;"
                            + " here kind send)");
        }

        @Test
        void theNamesOfDprofsOwnRegionsAreRefused() {
            fails("regions:\n  - {name: tcp.write, class: a.A, method: m}\n",
                    "dprof.yaml:2: regions[0].name: region name 'tcp.write' is taken by dprof's own TCP send region"
                            + " 'tcp.write'; choose another name");
            fails("regions:\n  - {name: tcp.read, class: a.A, method: m}\n",
                    "dprof.yaml:2: regions[0].name: region name 'tcp.read' is taken by dprof's own TCP receive region"
                            + " 'tcp.read'; choose another name");
            fails("regions:\n  - {name: DProf.send, class: a.A, method: m}\n",
                    "dprof.yaml:2: regions[0].name: region name 'DProf.send' is taken by the names of dprof's API"
                            + " regions ('DProf.*'); choose another name");
            fails("regions:\n  - {name: 'queue: LinkedBlockingQueue allocated in A.<init>:3', class: a.A, method: m}\n",
                    "dprof.yaml:2: regions[0].name: region name 'queue: LinkedBlockingQueue allocated in A.<init>:3'"
                            + " is taken by the names of dprof's own handoff sites ('queue: …'); choose another name");
            fails("regions:\n  - {name: 'thread: Thread.start and Thread.join', class: a.A, method: m}\n",
                    "dprof.yaml:2: regions[0].name: region name 'thread: Thread.start and Thread.join' is taken by the"
                            + " names of dprof's own handoff sites ('thread: …'); choose another name");
        }

        @Test
        void namesThatOnlyLookLikeDprofsOwnAreFree() throws ConfigException {
            assertEquals(3, ConfigLoader.parse("regions:\n  - {name: tcp.writer, class: a.A, method: m}\n"
                    + "  - {name: dprof.send, class: a.A, method: n}\n  - {name: 'queue:x', class: a.A, method: o}\n",
                    "dprof.yaml").regions().size());
        }

        @Test
        void duplicateId() {
            fails("regions:\n"
                            + "  - {name: a, class: a.A, method: m, id: 12}\n"
                            + "  - name: b\n"
                            + "    class: a.A\n"
                            + "    method: n\n"
                            + "    id: 12\n",
                    "dprof.yaml:6: regions[1].id: duplicate region id 12 (already used by region 'a' at line 2)");
        }

        @Test
        void idOutOfRange() {
            fails(region(null, "id: 16777216"), "dprof.yaml:5: regions[0].id: 16777216 is out of range (expected 1..16777215)");
        }

        @Test
        void idZero() {
            fails(region(null, "id: 0"), "dprof.yaml:5: regions[0].id: 0 is out of range (expected 1..16777215)");
        }

        @Test
        void idNotAnInteger() {
            fails(region(null, "id: twelve"), "dprof.yaml:5: regions[0].id: expected an integer, found 'twelve'");
        }

        @Test
        void unknownKind() {
            fails("regions:\n"
                            + "  - {name: a, class: a.A, method: m}\n"
                            + "  - name: b\n"
                            + "    class: a.A\n"
                            + "    method: n\n"
                            + "    kind: sned\n",
                    "dprof.yaml:6: regions[1].kind: unknown kind 'sned' (expected one of plain, send, receive,"
                            + " barrier, collective, progress, handoff)");
        }

        @Test
        void invalidClassGlobEmptySegment() {
            fails("regions:\n  - name: a\n    class: com..Foo\n    method: m\n",
                    "dprof.yaml:3: regions[0].class: invalid class pattern 'com..Foo': empty package segment");
        }

        @Test
        void invalidClassGlobSlashes() {
            fails("regions:\n  - name: a\n    class: com/acme/Foo\n    method: m\n",
                    "dprof.yaml:3: regions[0].class: invalid class pattern 'com/acme/Foo': use '.' to separate"
                            + " packages, not '/'");
        }

        @Test
        void invalidClassGlobTripleStar() {
            fails("regions:\n  - name: a\n    class: com.***\n    method: m\n",
                    "dprof.yaml:3: regions[0].class: invalid class pattern 'com.***': '***' is not a wildcard"
                            + " (use '*' or '**')");
        }

        @Test
        void invalidClassGlobCharacter() {
            fails("regions:\n  - name: a\n    class: com.acme-corp.Foo\n    method: m\n",
                    "dprof.yaml:3: regions[0].class: invalid class pattern 'com.acme-corp.Foo': invalid character '-'");
        }

        @Test
        void invalidMethodGlob() {
            fails("regions:\n  - name: a\n    class: a.A\n    method: A.run\n",
                    "dprof.yaml:4: regions[0].method: invalid method pattern 'A.run': a method pattern names a"
                            + " method, not a class: it cannot contain '.'");
        }

        @Test
        void staticInitialiser() {
            fails("regions:\n  - name: a\n    class: a.A\n    method: <clinit>\n",
                    "dprof.yaml:4: regions[0].method: invalid method pattern '<clinit>': static initialisers"
                            + " ('<clinit>') cannot be profiled");
        }

        @Test
        void descriptorMissingParen() {
            fails(region(null, "descriptor: \"(I\""),
                    "dprof.yaml:5: regions[0].descriptor: invalid method descriptor '(I': missing ')'");
        }

        @Test
        void descriptorWithDots() {
            fails(region(null, "descriptor: \"(Ljava.lang.String;)V\""),
                    "dprof.yaml:5: regions[0].descriptor: invalid method descriptor '(Ljava.lang.String;)V': class"
                            + " names in descriptors use '/', not '.' ('java.lang.String')");
        }

        @Test
        void descriptorUnknownType() {
            fails(region(null, "descriptor: (int)V"),
                    "dprof.yaml:5: regions[0].descriptor: invalid method descriptor '(int)V': unknown type 'i' at"
                            + " offset 1 (expected one of B, C, D, F, I, J, S, Z, L<class>; or [)");
        }

        @Test
        void descriptorNoReturnType() {
            fails(region(null, "descriptor: (I)"),
                    "dprof.yaml:5: regions[0].descriptor: invalid method descriptor '(I)': missing return type after ')'");
        }

        @Test
        void descriptorConstructorReturnsValue() {
            fails("regions:\n  - name: a\n    class: a.A\n    method: <init>\n    descriptor: (I)I\n",
                    "dprof.yaml:5: regions[0].descriptor: invalid method descriptor '(I)I': a constructor ('<init>')"
                            + " returns V");
        }

        @Test
        void keyOnPlainRegion() {
            fails(region(null, "key: {arg: 0}"),
                    "dprof.yaml:5: regions[0].key: not allowed for kind plain (only for send, receive, barrier, collective, handoff)");
        }

        @Test
        void keyOnProgressRegion() {
            fails(region("progress", "key: {arg: 0}"),
                    "dprof.yaml:6: regions[0].key: not allowed for kind progress (only for send, receive, barrier, collective, handoff)");
        }

        @Test
        void missingKeyOnSend() {
            fails(region("send"), "dprof.yaml:2: regions[0]: missing required key 'key' for kind send (the message key)");
        }

        @Test
        void missingKeyOnReceive() {
            fails(region("receive", "channel: inbox"),
                    "dprof.yaml:2: regions[0]: missing required key 'key' for kind receive (the message key)");
        }

        @Test
        void missingKeyOnBarrier() {
            fails(region("barrier", "participants: 4"),
                    "dprof.yaml:2: regions[0]: missing required key 'key' for kind barrier (the barrier instance key)");
        }

        @Test
        void missingParticipantsOnBarrier() {
            fails(region("barrier", "key: {field: generation}"),
                    "dprof.yaml:2: regions[0]: missing required key 'participants' for kind barrier");
        }

        @Test
        void participantsOnSend() {
            fails(region("send", "key: {arg: 0}", "participants: 4"),
                    "dprof.yaml:7: regions[0].participants: not allowed for kind send (only for barrier, collective)");
        }

        @Test
        void collectiveWithoutFlavour() {
            fails(region("collective", "key: {arg: 0}", "participants: 4"),
                    "dprof.yaml:2: regions[0]: missing required key 'flavour' for kind collective (one of allreduce,"
                            + " barrier, allgather, alltoall, bcast, scatter, reduce, gather, scan, exscan)");
        }

        @Test
        void collectiveWithUnknownFlavour() {
            fails(region("collective", "flavour: broadcast", "key: {arg: 0}", "participants: 4"),
                    "dprof.yaml:6: regions[0].flavour: unknown flavour 'broadcast' (expected one of allreduce, barrier,"
                            + " allgather, alltoall, bcast, scatter, reduce, gather, scan, exscan)");
        }

        @Test
        void rootedCollectiveWithoutRoot() {
            fails(region("collective", "flavour: bcast", "key: {arg: 0}", "participants: 4", "rank: {property: r}"),
                    "dprof.yaml:2: regions[0]: missing required key 'root' for kind collective (flavour bcast)"
                            + " (the root's rank)");
        }

        @Test
        void scanWithoutRank() {
            fails(region("collective", "flavour: scan", "key: {arg: 0}", "participants: 4"),
                    "dprof.yaml:2: regions[0]: missing required key 'rank' for kind collective (flavour scan)"
                            + " (this participant's rank, 0 .. participants − 1)");
        }

        @Test
        void rootOnAnAllReduce() {
            fails(region("collective", "flavour: allreduce", "key: {arg: 0}", "participants: 4", "root: 0"),
                    "dprof.yaml:9: regions[0].root: not allowed for flavour allreduce: it has no root");
        }

        @Test
        void negativeRoot() {
            fails(region("collective", "flavour: gather", "key: {arg: 0}", "participants: 4", "rank: 1", "root: -1"),
                    "dprof.yaml:10: regions[0].root: -1 is out of range (expected 0..2147483647)");
        }

        @Test
        void rankOnABarrier() {
            fails(region("barrier", "key: {arg: 0}", "participants: 4", "rank: 1"),
                    "dprof.yaml:8: regions[0].rank: not allowed for kind barrier (only for collective)");
        }

        @Test
        void flavourOnABarrier() {
            fails(region("barrier", "key: {arg: 0}", "participants: 4", "flavour: bcast"),
                    "dprof.yaml:8: regions[0].flavour: not allowed for kind barrier (only for collective)");
        }

        @Test
        void rankFromTheReturnValue() {
            fails(region("collective", "flavour: scan", "key: {arg: 0}", "participants: 4", "rank: {return: true}"),
                    "dprof.yaml:9: regions[0].rank: 'return' is only allowed in the key of a receive region");
        }

        @Test
        void channelOnBarrier() {
            fails(region("barrier", "key: {arg: 0}", "participants: 4", "channel: x"),
                    "dprof.yaml:8: regions[0].channel: not allowed for kind barrier (only for send, receive, handoff)");
        }

        @Test
        void participantsZero() {
            fails(region("barrier", "key: {arg: 0}", "participants: 0"),
                    "dprof.yaml:7: regions[0].participants: 0 is out of range (expected 1..2147483647)");
        }

        @Test
        void participantsNotANumber() {
            fails(region("barrier", "key: {arg: 0}", "participants: many"),
                    "dprof.yaml:7: regions[0].participants: expected a positive integer or a value source such as"
                            + " {property: NAME} or {arg: N}, found 'many'");
        }

        @Test
        void participantsNegativeConst() {
            fails(region("barrier", "key: {arg: 0}", "participants: {const: -3}"),
                    "dprof.yaml:7: regions[0].participants.const: -3 is out of range (expected 1..2147483647)");
        }

        @Test
        void participantsReturn() {
            fails(region("barrier", "key: {arg: 0}", "participants: {return: true}"),
                    "dprof.yaml:7: regions[0].participants: 'return' is only allowed in the key of a receive region");
        }

        @Test
        void instanceFromField() {
            fails(region(null, "instance: {field: rank}"),
                    "dprof.yaml:5: regions[0].instance: expected {arg: N} (per call) or {property: NAME} (once at"
                            + " start), found {field: rank}");
        }

        @Test
        void instanceScalar() {
            fails(region(null, "instance: 3"),
                    "dprof.yaml:5: regions[0].instance: expected {arg: N} (per call) or {property: NAME} (once at"
                            + " start), found '3'");
        }
    }

    @Nested
    class ValueSources {
        @Test
        void returnOnSend() {
            fails(region("send", "key: {return: true}"),
                    "dprof.yaml:6: regions[0].key: 'return' is only allowed for kind receive or a handoff's take, not send");
        }

        @Test
        void returnOnBarrierKey() {
            fails(region("barrier", "participants: 2", "key:", "  return: true"),
                    "dprof.yaml:8: regions[0].key: 'return' is only allowed for kind receive or a handoff's take, not barrier");
        }

        @Test
        void returnAsChannel() {
            fails(region("receive", "key: {arg: 0}", "channel: {return: true}"),
                    "dprof.yaml:7: regions[0].channel: 'return' is only allowed in the key of a receive region");
        }

        @Test
        void returnAsInstance() {
            fails(region("receive", "key: {arg: 0}", "instance: {return: true}"),
                    "dprof.yaml:7: regions[0].instance: 'return' is only allowed in the key of a receive region");
        }

        @Test
        void returnFalse() {
            fails(region("receive", "key: {return: false}"),
                    "dprof.yaml:6: regions[0].key.return: must be true (omit 'return' otherwise)");
        }

        @Test
        void fieldAndGetter() {
            fails(region("send", "key: {arg: 1, field: seq, getter: seq}"),
                    "dprof.yaml:6: regions[0].key: 'field' and 'getter' cannot be combined (read one or the other)");
        }

        @Test
        void propertyWithArg() {
            fails(region("send", "key:", "  arg: 1", "  property: dprof.seq"),
                    "dprof.yaml:7: regions[0].key: 'property' cannot be combined with 'arg'");
        }

        @Test
        void constWithField() {
            fails(region("send", "key: {const: 3, field: x}"),
                    "dprof.yaml:6: regions[0].key: 'const' cannot be combined with 'field'");
        }

        @Test
        void returnWithGetter() {
            fails(region("receive", "key: {return: true, getter: seq}"),
                    "dprof.yaml:6: regions[0].key: 'return' cannot be combined with 'getter'");
        }

        @Test
        void emptySource() {
            fails(region("send", "key: {}"),
                    "dprof.yaml:6: regions[0].key: empty value source (expected one of arg, field, getter, return,"
                            + " property, const)");
        }

        @Test
        void unknownSourceKey() {
            fails(region("send", "key: {arg: 1, fild: seq}"),
                    "dprof.yaml:6: regions[0].key: unknown key 'fild' (expected one of arg, field, getter, return,"
                            + " property, const)");
        }

        @Test
        void scalarKey() {
            fails(region("send", "key: 3"),
                    "dprof.yaml:6: regions[0].key: expected a value source such as {arg: N}, {field: NAME},"
                            + " {getter: NAME}, {property: NAME} or {const: VALUE}, found '3'");
        }

        @Test
        void negativeArg() {
            fails(region("send", "key: {arg: -1}"), "dprof.yaml:6: regions[0].key.arg: -1 is out of range (expected 0..254)");
        }

        @Test
        void argNotAnInteger() {
            fails(region("send", "key: {arg: first}"),
                    "dprof.yaml:6: regions[0].key.arg: expected an integer, found 'first'");
        }

        @Test
        void fieldNotAnIdentifier() {
            fails(region("send", "key: {field: seq-no}"),
                    "dprof.yaml:6: regions[0].key.field: 'seq-no' is not a valid Java identifier");
        }

        @Test
        void getterWithParentheses() {
            fails(region("send", "key: {getter: \"seq()\"}"),
                    "dprof.yaml:6: regions[0].key.getter: 'seq()' is not a valid Java identifier");
        }

        @Test
        void constList() {
            fails(region("send", "key: {const: [1, 2]}"),
                    "dprof.yaml:6: regions[0].key.const: expected a string or an integer, found a list");
        }

        @Test
        void propertyEmpty() {
            fails(region("send", "key: {property: \"\"}"), "dprof.yaml:6: regions[0].key.property: must not be empty");
        }

        @Test
        void channelList() {
            fails(region("send", "key: {arg: 0}", "channel: [a]"),
                    "dprof.yaml:7: regions[0].channel: expected a value source such as {arg: N}, {field: NAME},"
                            + " {getter: NAME}, {property: NAME} or {const: VALUE}, found a list");
        }

        @Test
        void errorsInMergedValuesPointAtWhereTheyAreWritten() {
            fails("regions:\n"
                            + "  - &send {name: a, class: a.A, method: m, kind: send, key: {arg: 0}}\n"
                            + "  - <<: *send\n"
                            + "    name: b\n"
                            + "    kind: plain\n",
                    "dprof.yaml:2: regions[1].key: not allowed for kind plain (only for send, receive, barrier, collective, handoff)");
        }
    }
}
