package dev.dprof.testsupport;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The one owner of every system property and environment variable that only the tests read, listed
 * in {@code docs/CONFIG.md}, "Settings of the tests" ({@code DprofSettings} owns those of the product,
 * which the tests also set, {@code dprof.jar} among them). In this module, which every module whose
 * tests read one of them has as a test dependency, and which depends on nothing of ours. Read when
 * asked, never cached.
 */
public final class TestSettings {
    /** {@code true} on CI: a test that would skip for want of a tool or a JDK fails instead. */
    public static final String CI_ENV = "CI";
    /** Where the tests look for a C compiler and for Chromium. */
    public static final String PATH_ENV = "PATH";
    /** The test classes of the module under test, for the JVMs the integration tests fork (set by the build). */
    public static final String TEST_CLASSPATH_PROPERTY = "dprof.test.classpath";
    /** The command line's run-time class path, for the integration tests that run {@code dprof} (set by the build). */
    public static final String CLI_CLASSPATH_PROPERTY = "dprof.cli.classpath";
    /** The host application's class path of {@code agent/host-it}, nothing of dprof's (set by the build). */
    public static final String HOST_CLASSPATH_PROPERTY = "dprof.host.classpath";
    /** A JDK 21 or later for the checks on a modern JDK, instead of the first one under {@code /usr/lib/jvm}. */
    public static final String MODERN_JDK_PROPERTY = "dprof.modernJdk";
    /** {@code dprof.jdkN}: the home of the JDK of feature release N for {@code agent/host-it}. */
    public static final String JDK_HOME_PROPERTY_PREFIX = "dprof.jdk";
    /** The seed of {@code ConfigFuzzTest}. */
    public static final String FUZZ_SEED_PROPERTY = "dprof.fuzzSeed";
    /** The rounds of {@code ConfigFuzzTest}. */
    public static final String FUZZ_ROUNDS_PROPERTY = "dprof.fuzzRounds";
    /** {@code true}: the golden-file tests rewrite their golden files instead of comparing. */
    public static final String GOLDEN_UPDATE_PROPERTY = "dprof.golden.update";
    /** {@code ZooKeeperIT}: measured runs. */
    public static final String ZK_RUNS_PROPERTY = "dprof.zk.runs";
    /** {@code ZooKeeperIT}: writes per run. */
    public static final String ZK_WRITES_PROPERTY = "dprof.zk.writes";
    /** {@code ZooKeeperIT}: concurrent client lanes. */
    public static final String ZK_LANES_PROPERTY = "dprof.zk.lanes";
    /** {@code ZooKeeperIT}: unmeasured writes before each run. */
    public static final String ZK_WARMUP_PROPERTY = "dprof.zk.warmup";
    /** {@code ZooKeeperIT}: the ensemble's tick in milliseconds. */
    public static final String ZK_TICK_MS_PROPERTY = "dprof.zk.tickMs";
    /** {@code ZooKeeperIT}: {@code true} keeps idle CPUs polling (a PM QoS latency of 0). */
    public static final String ZK_POLL_IDLE_PROPERTY = "dprof.zk.pollIdle";
    /** {@code ZooKeeperIT}: a folder to keep the runs in, instead of a deleted temporary one. */
    public static final String ZK_DIR_PROPERTY = "dprof.zk.dir";
    /**
     * The agent argument that makes a run in statistics mode write its events too, so that a test
     * compares the statistics with the trace of the same run ({@code StatisticsModeIT}); the agent
     * reads it from its argument string, never from a property.
     */
    public static final String ALSO_TRACE_AGENT_ARGUMENT = "alsoTrace=true";

    private TestSettings() {
    }

    /** Whether {@link #CI_ENV} is {@code true}. */
    public static boolean ci() {
        return "true".equalsIgnoreCase(System.getenv(CI_ENV));
    }

    /** The first of {@code names} that is an executable in a directory of {@link #PATH_ENV}. */
    public static Optional<Path> onPath(String... names) {
        String path = System.getenv(PATH_ENV);
        for (String dir : path == null ? new String[0] : path.split(File.pathSeparator)) {
            for (String name : names) {
                if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, name))) {
                    return Optional.of(Path.of(dir, name));
                }
            }
        }
        return Optional.empty();
    }

    /** Whether a C compiler is on the {@link #PATH_ENV}, as {@code agent/bootstrap/src/main/c/build.sh} looks for one. */
    public static boolean compilerOnPath() {
        return onPath("gcc", "cc").isPresent();
    }

    /** {@link #TEST_CLASSPATH_PROPERTY}; fails the test when the build did not set it. */
    public static String testClasspath() {
        return required(TEST_CLASSPATH_PROPERTY);
    }

    /** {@link #CLI_CLASSPATH_PROPERTY}; fails the test when the build did not set it. */
    public static String cliClasspath() {
        return required(CLI_CLASSPATH_PROPERTY);
    }

    /** {@link #HOST_CLASSPATH_PROPERTY}; fails the test when the build did not set it. */
    public static String hostClasspath() {
        return required(HOST_CLASSPATH_PROPERTY);
    }

    /** {@link #MODERN_JDK_PROPERTY}, when set. */
    public static Optional<Path> modernJdk() {
        return Optional.ofNullable(System.getProperty(MODERN_JDK_PROPERTY)).map(Path::of);
    }

    /** {@code dprof.jdkN} for {@code feature} N, when set. */
    public static Optional<Path> jdkHome(int feature) {
        return Optional.ofNullable(System.getProperty(JDK_HOME_PROPERTY_PREFIX + feature)).map(Path::of);
    }

    /** {@link #FUZZ_SEED_PROPERTY}, else {@code fallback}. */
    public static long fuzzSeed(long fallback) {
        return Long.getLong(FUZZ_SEED_PROPERTY, fallback);
    }

    /** {@link #FUZZ_ROUNDS_PROPERTY}, else {@code fallback}. */
    public static int fuzzRounds(int fallback) {
        return Integer.getInteger(FUZZ_ROUNDS_PROPERTY, fallback);
    }

    /** Whether {@link #GOLDEN_UPDATE_PROPERTY} is {@code true}. */
    public static boolean goldenUpdate() {
        return Boolean.getBoolean(GOLDEN_UPDATE_PROPERTY);
    }

    /** The integer property {@code name} (one of the {@code ZK_…} above), else {@code fallback}. */
    public static int zooKeeper(String name, int fallback) {
        return Integer.getInteger(name, fallback);
    }

    /** Whether {@link #ZK_POLL_IDLE_PROPERTY} is {@code true}. */
    public static boolean zooKeeperPollIdle() {
        return Boolean.getBoolean(ZK_POLL_IDLE_PROPERTY);
    }

    /** {@link #ZK_DIR_PROPERTY}, when set. */
    public static Optional<String> zooKeeperDir() {
        return Optional.ofNullable(System.getProperty(ZK_DIR_PROPERTY));
    }

    /**
     * The failure of a test that needs system property {@code name}, which the build sets (for one the
     * product owns, such as {@code DprofSettings.AGENT_JAR_PROPERTY}, read through its owner).
     */
    public static AssertionError notSetByTheBuild(String name) {
        return new AssertionError("system property " + name + " is not set: run the tests through Maven");
    }

    private static String required(String name) {
        String value = System.getProperty(name);
        if (value == null) {
            throw notSetByTheBuild(name);
        }
        return value;
    }
}
