package dev.dprof.examples.worker;

import dev.dprof.examples.net.Mesh;
import java.net.InetSocketAddress;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The command line of a worker: {@code --name value} pairs, each with a default. The options all
 * examples share come first ({@link #COMMON}); an example adds its own.
 */
public final class Args {
    /** Options of every worker. Without {@code --peers} a worker runs alone as rank 0. */
    public static final Map<String, String> COMMON = common();

    private final Map<String, String> values;

    private Args(Map<String, String> values) {
        this.values = values;
    }

    private static Map<String, String> common() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("rank", "0");
        m.put("peers", "127.0.0.1:0");
        m.put("threads", "2");
        m.put("seed", "42");
        m.put("iterations", "10");
        m.put("straggler", "-1");
        m.put("imbalance", "1");
        return m;
    }

    /** The common options with {@code extra} added (an entry of {@code extra} overrides a common default). */
    public static Map<String, String> defaults(Map<String, String> extra) {
        Map<String, String> m = new LinkedHashMap<>(COMMON);
        m.putAll(extra);
        return m;
    }

    /** Parses {@code argv} against {@code defaults}; an unknown option or a missing value is an error. */
    public static Args parse(String[] argv, Map<String, String> defaults) {
        Map<String, String> values = new LinkedHashMap<>(defaults);
        for (int i = 0; i < argv.length; i += 2) {
            String option = argv[i];
            if (!option.startsWith("--") || !defaults.containsKey(option.substring(2))) {
                throw new IllegalArgumentException("unknown option '" + option + "' (expected one of --"
                        + String.join(", --", defaults.keySet()) + ")");
            }
            if (i + 1 == argv.length) {
                throw new IllegalArgumentException("option " + option + " needs a value");
            }
            values.put(option.substring(2), argv[i + 1]);
        }
        Args args = new Args(values);
        args.check();
        return args;
    }

    private void check() {
        if (threads() < 1) {
            throw new IllegalArgumentException("--threads must be at least 1");
        }
        if (iterations() < 1) {
            throw new IllegalArgumentException("--iterations must be at least 1");
        }
        if (!(imbalance() >= 1) || Double.isInfinite(imbalance())) {
            throw new IllegalArgumentException("--imbalance must be a finite number >= 1 (times the normal share)");
        }
        if (rank() < 0 || rank() >= peers().size()) {
            throw new IllegalArgumentException("--rank " + rank() + " is not in 0.." + (peers().size() - 1)
                    + " (one --peers entry per rank)");
        }
    }

    public String text(String name) {
        String v = values.get(name);
        if (v == null) {
            throw new IllegalArgumentException("no option --" + name);
        }
        return v;
    }

    public int integer(String name) {
        try {
            return Integer.parseInt(text(name));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + ": not an integer: " + text(name));
        }
    }

    public long longValue(String name) {
        try {
            return Long.parseLong(text(name));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + ": not an integer: " + text(name));
        }
    }

    public double real(String name) {
        try {
            return Double.parseDouble(text(name));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + ": not a number: " + text(name));
        }
    }

    public boolean flag(String name) {
        String v = text(name);
        if (!v.equals("true") && !v.equals("false")) {
            throw new IllegalArgumentException("--" + name + ": expected true or false, found " + v);
        }
        return v.equals("true");
    }

    public int rank() {
        return integer("rank");
    }

    public List<InetSocketAddress> peers() {
        return Mesh.parsePeers(text("peers"));
    }

    public int threads() {
        return integer("threads");
    }

    public long seed() {
        return longValue("seed");
    }

    public int iterations() {
        return integer("iterations");
    }

    public int straggler() {
        return integer("straggler");
    }

    public double imbalance() {
        return real("imbalance");
    }

    /** How many times its normal share this worker does: the imbalance for the straggler, else 1. */
    public double factor() {
        return rank() == straggler() ? imbalance() : 1;
    }
}
