package dev.dprof.agent;

import java.nio.file.Path;
import java.util.Optional;

/**
 * The agent's argument string: {@code config=FILE[,out=DIR][,warmup=true]}. A bare argument
 * without '=' is taken as the config file, the way {@code -javaagent:dprof.jar=dprof.yaml} reads
 * naturally. {@code warmup=true} lets the drainer warm up before {@code main} (off by default:
 * measured, it did not lower the overhead, see BENCHMARKS.md "Agent overhead").
 */
record AgentArgs(Optional<Path> config, Optional<Path> out, boolean warmup) {

    static AgentArgs parse(String args) {
        Optional<Path> config = Optional.empty();
        Optional<Path> out = Optional.empty();
        boolean warmup = false;
        if (args == null || args.isBlank()) {
            return new AgentArgs(config, out, warmup);
        }
        for (String part : args.split(",")) {
            String p = part.trim();
            if (p.isEmpty()) {
                continue;
            }
            int eq = p.indexOf('=');
            String key = eq < 0 ? "config" : p.substring(0, eq).trim();
            String value = eq < 0 ? p : p.substring(eq + 1).trim();
            switch (key) {
                case "config" -> config = Optional.of(Path.of(value));
                case "out" -> out = Optional.of(Path.of(value));
                case "warmup" -> {
                    if (!value.equals("true") && !value.equals("false")) {
                        throw new IllegalArgumentException("agent argument warmup: expected true or false, found '"
                                + value + "'");
                    }
                    warmup = value.equals("true");
                }
                default -> throw new IllegalArgumentException("unknown agent argument '" + key
                        + "' (expected config=FILE, out=DIR, warmup=true|false)");
            }
        }
        return new AgentArgs(config, out, warmup);
    }
}
