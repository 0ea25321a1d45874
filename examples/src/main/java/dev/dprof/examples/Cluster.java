package dev.dprof.examples;

import dev.dprof.examples.cc.ConnectedComponents;
import dev.dprof.examples.kmeans.DistributedKMeans;
import dev.dprof.examples.pagerank.PageRank;
import dev.dprof.examples.service.Service;
import dev.dprof.settings.DprofSettings;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.IntFunction;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Starts N worker JVMs of one example on loopback, each with {@code --rank R --peers ...} (ports
 * chosen free) and {@code -Ddprof.rank=R -Ddprof.participants=N×T}, waits for all and collects
 * their exit codes, their output and their span lines.
 *
 * <pre>
 * Cluster.Result r = Cluster.builder().app("kmeans").workers(4).threads(2).straggler(1, 2.0)
 *         .jvmArgs(rank -&gt; List.of("-javaagent:dprof.jar=config=examples/kmeans/dprof-distributed.yaml"))
 *         .run();
 * r.ok(); r.span(1);
 * </pre>
 *
 * <h2>How to run this</h2>
 * <pre>
 * java -cp examples/target/dprof-examples.jar dev.dprof.examples.Cluster APP \
 *      [--workers 4] [--threads 2] [--iterations I] [--seed S] [--straggler R --imbalance X] \
 *      [--jvm-arg ARG]... [--rank-jvm-arg R=ARG]... [--timeout-s 600] [-- APP_OPTIONS...]
 * </pre>
 * APP is one of kmeans, pagerank, cc, service. Each worker's output is echoed with a
 * {@code [rank R]} prefix; the exit code is 0 when every worker exited with 0, else 1 (2 for a
 * bad command line).
 */
public final class Cluster {
    /** The examples the launcher knows by name. */
    public static final Map<String, Class<?>> APPS = Map.of(
            "kmeans", DistributedKMeans.class,
            "pagerank", PageRank.class,
            "cc", ConnectedComponents.class,
            "service", Service.class);
    /** The exit code recorded for a worker killed because the cluster ran out of time. */
    public static final int TIMED_OUT = -1;
    static final Pattern SPAN = Pattern.compile("^\\S+: rank (\\d+) span ([0-9.]+) s$");

    private Cluster() {
    }

    public static Builder builder() {
        return new Builder();
    }

    /** One worker's end: exit code, everything it printed (stdout and stderr, in order), its span. */
    public record Worker(int rank, int exitCode, List<String> output, OptionalDouble span) {
    }

    /** Every worker's end, by rank. */
    public record Result(List<Worker> workers) {
        public boolean ok() {
            return workers.stream().allMatch(w -> w.exitCode() == 0);
        }

        public List<Integer> exitCodes() {
            return workers.stream().map(Worker::exitCode).collect(Collectors.toList());
        }

        /** The span worker {@code rank} printed, in seconds. */
        public OptionalDouble span(int rank) {
            return workers.get(rank).span();
        }

        /** The longest span: the cluster's iteration time. */
        public OptionalDouble maxSpan() {
            return workers.stream().map(Worker::span).filter(OptionalDouble::isPresent)
                    .mapToDouble(OptionalDouble::getAsDouble).max();
        }

        /** The span lines, one per worker that printed one. */
        public List<String> spanLines() {
            List<String> lines = new ArrayList<>();
            for (Worker w : workers) {
                for (String line : w.output()) {
                    if (SPAN.matcher(line).matches()) {
                        lines.add(line);
                    }
                }
            }
            return lines;
        }
    }

    /** What to start; {@link #run} starts it. */
    public static final class Builder {
        private String mainClass;
        private int workers = 4;
        private int threads = 2;
        private Integer iterations;
        private Long seed;
        private int straggler = -1;
        private double imbalance = 1;
        private final List<String> appArgs = new ArrayList<>();
        private IntFunction<List<String>> jvmArgs = rank -> List.of();
        private String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        private String classpath = ownClasspath();
        private Path directory;
        private PrintStream echo;
        private Duration timeout = Duration.ofMinutes(10);
        private String host = "127.0.0.1";

        private Builder() {
        }

        /** An example by name: kmeans, pagerank, cc, service. */
        public Builder app(String name) {
            Class<?> main = APPS.get(name);
            if (main == null) {
                throw new IllegalArgumentException("unknown app '" + name + "' (expected one of "
                        + String.join(", ", APPS.keySet().stream().sorted().toList()) + ")");
            }
            this.mainClass = main.getName();
            return this;
        }

        /** Any main class that takes the worker options ({@code --rank}, {@code --peers}, ...). */
        public Builder mainClass(String name) {
            this.mainClass = name;
            return this;
        }

        public Builder workers(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("workers must be at least 1");
            }
            this.workers = n;
            return this;
        }

        public Builder threads(int t) {
            if (t < 1) {
                throw new IllegalArgumentException("threads must be at least 1");
            }
            this.threads = t;
            return this;
        }

        public Builder iterations(int i) {
            this.iterations = i;
            return this;
        }

        public Builder seed(long s) {
            this.seed = s;
            return this;
        }

        /** Rank {@code rank} does {@code imbalance} times its share of the work. */
        public Builder straggler(int rank, double imbalance) {
            this.straggler = rank;
            this.imbalance = imbalance;
            return this;
        }

        /** Options for the example itself, e.g. {@code "--points", "100000"}. */
        public Builder args(String... args) {
            this.appArgs.addAll(List.of(args));
            return this;
        }

        public Builder args(List<String> args) {
            this.appArgs.addAll(args);
            return this;
        }

        /** JVM options per rank, e.g. {@code -javaagent:...} and {@code -Ddprof.clock.sim=...}. */
        public Builder jvmArgs(IntFunction<List<String>> perRank) {
            this.jvmArgs = perRank;
            return this;
        }

        public Builder java(String executable) {
            this.java = executable;
            return this;
        }

        /** Defaults to where this class was loaded from (the examples jar or classes folder). */
        public Builder classpath(String path) {
            this.classpath = path;
            return this;
        }

        /** The workers' working directory; by default this process's. */
        public Builder directory(Path dir) {
            this.directory = dir;
            return this;
        }

        /** Copy every worker line, prefixed {@code [rank R] }, to {@code out} as it comes. */
        public Builder echo(PrintStream out) {
            this.echo = out;
            return this;
        }

        /** After this the workers still running are killed and get {@link #TIMED_OUT}. */
        public Builder timeout(Duration limit) {
            this.timeout = limit;
            return this;
        }

        public Builder host(String address) {
            this.host = address;
            return this;
        }

        /** The command line of {@code rank}'s worker, given the peers string. */
        List<String> command(int rank, String peers) {
            if (mainClass == null) {
                throw new IllegalStateException("no app: call app(name) or mainClass(name)");
            }
            List<String> command = new ArrayList<>();
            command.add(java);
            command.add("-D" + DprofSettings.RANK_PROPERTY + "=" + rank);
            command.add("-D" + DprofSettings.PARTICIPANTS_PROPERTY + "=" + workers * threads);
            command.addAll(jvmArgs.apply(rank));
            command.addAll(List.of("-cp", classpath, mainClass, "--rank", Integer.toString(rank),
                    "--peers", peers, "--threads", Integer.toString(threads)));
            if (iterations != null) {
                command.addAll(List.of("--iterations", Integer.toString(iterations)));
            }
            if (seed != null) {
                command.addAll(List.of("--seed", Long.toString(seed)));
            }
            if (straggler >= 0) {
                command.addAll(List.of("--straggler", Integer.toString(straggler),
                        "--imbalance", Double.toString(imbalance)));
            }
            command.addAll(appArgs);
            return command;
        }

        /**
         * Starts the workers and waits for all of them. When one fails the others are stopped at
         * once (in a full mesh they cannot finish without it); when the time is up all are.
         */
        public Result run() throws IOException, InterruptedException {
            String peers = freePorts(workers, host).stream().map(p -> host + ":" + p)
                    .collect(Collectors.joining(","));
            List<List<String>> commands = new ArrayList<>();
            for (int rank = 0; rank < workers; rank++) {
                commands.add(command(rank, peers));
            }
            return WorkerProcesses.run(commands, directory, echo, timeout);
        }
    }

    /**
     * {@code n} distinct ports free on {@code host} right now. They are released before the workers
     * bind them, so they are drawn below the kernel's ephemeral range
     * ({@code /proc/sys/net/ipv4/ip_local_port_range}): every port the kernel picks by itself — for
     * a connecting socket, or a listener bound to port 0 such as each worker's channel listener — is
     * inside that range, so in between only a process that binds this very port could take it (the
     * workers then fail to listen and say so). Where the range is unknown, the kernel picks.
     */
    public static List<Integer> freePorts(int n, String host) throws IOException {
        InetAddress address = InetAddress.getByName(host);
        int below = ephemeralLow();
        List<Integer> ports = new ArrayList<>();
        for (int attempt = 0; ports.size() < n; attempt++) {
            boolean draw = below > FIRST_DRAWN_PORT && attempt < 100 * n;
            int port = draw ? ThreadLocalRandom.current().nextInt(FIRST_DRAWN_PORT, below) : 0;
            try (ServerSocket socket = new ServerSocket()) {
                socket.bind(new InetSocketAddress(address, port));
                if (!ports.contains(socket.getLocalPort())) {
                    ports.add(socket.getLocalPort());
                }
            } catch (BindException e) {
                // in use: draw another
            }
        }
        return ports;
    }

    /** Ports below this are left alone: well-known and registered services live there. */
    private static final int FIRST_DRAWN_PORT = 10_000;

    /** The first port of the kernel's ephemeral range, or 0 if it cannot be read. */
    private static int ephemeralLow() {
        try {
            String range = Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).trim();
            return Integer.parseInt(range.split("\\s+")[0]);
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    private static String ownClasspath() {
        try {
            return Path.of(Cluster.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (URISyntaxException | RuntimeException e) {
            return System.getProperty("java.class.path");
        }
    }

    public static void main(String[] argv) throws InterruptedException {
        Builder builder;
        try {
            builder = parse(argv);
        } catch (IllegalArgumentException e) {
            System.err.println("cluster: " + e.getMessage());
            System.err.println("usage: Cluster APP [--workers N] [--threads T] [--iterations I] [--seed S]"
                    + " [--straggler R --imbalance X] [--jvm-arg ARG]... [--rank-jvm-arg R=ARG]... [--timeout-s S]"
                    + " [-- APP_OPTIONS...]   APP: " + String.join(", ", APPS.keySet().stream().sorted().toList()));
            System.exit(2);
            return;
        }
        Result result;
        try {
            result = builder.echo(System.out).run();
        } catch (IOException | UncheckedIOException e) {
            System.err.println("cluster: " + e.getMessage());
            System.exit(1);
            return;
        }
        for (Worker w : result.workers()) {
            System.out.printf(Locale.ROOT, "cluster: rank %d exit %d span %s%n", w.rank(), w.exitCode(),
                    w.span().isPresent() ? String.format(Locale.ROOT, "%.3f s", w.span().getAsDouble()) : "-");
        }
        System.exit(result.ok() ? 0 : 1);
    }

    static Builder parse(String[] argv) {
        if (argv.length == 0) {
            throw new IllegalArgumentException("no app given");
        }
        Builder b = builder().app(argv[0]);
        List<String> all = new ArrayList<>();
        Map<Integer, List<String>> perRank = new java.util.HashMap<>();
        int straggler = -1;
        double imbalance = 1;
        int i = 1;
        for (; i < argv.length; i += 2) {
            String option = argv[i];
            if (option.equals("--")) {
                i++;
                break;
            }
            if (i + 1 >= argv.length) {
                throw new IllegalArgumentException("option " + option + " needs a value");
            }
            String v = argv[i + 1];
            switch (option) {
                case "--workers" -> b.workers(Integer.parseInt(v));
                case "--threads" -> b.threads(Integer.parseInt(v));
                case "--iterations" -> b.iterations(Integer.parseInt(v));
                case "--seed" -> b.seed(Long.parseLong(v));
                case "--straggler" -> straggler = Integer.parseInt(v);
                case "--imbalance" -> imbalance = Double.parseDouble(v);
                case "--jvm-arg" -> all.add(v);
                case "--rank-jvm-arg" -> {
                    int eq = v.indexOf('=');
                    if (eq <= 0) {
                        throw new IllegalArgumentException("--rank-jvm-arg expects R=ARG, found " + v);
                    }
                    perRank.computeIfAbsent(Integer.parseInt(v.substring(0, eq)), r -> new ArrayList<>())
                            .add(v.substring(eq + 1));
                }
                case "--timeout-s" -> b.timeout(Duration.ofSeconds(Long.parseLong(v)));
                default -> throw new IllegalArgumentException("unknown option " + option);
            }
        }
        b.args(List.of(argv).subList(Math.min(i, argv.length), argv.length));
        if (straggler >= 0) {
            b.straggler(straggler, imbalance);
        }
        b.jvmArgs(rank -> {
            List<String> args = new ArrayList<>(all);
            args.addAll(perRank.getOrDefault(rank, List.of()));
            return args;
        });
        return b;
    }
}
