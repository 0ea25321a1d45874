package dev.dprof.agent;

import java.nio.file.Path;
import java.util.Optional;

/**
 * The agent's argument string: {@code config=FILE[,out=DIR][,warmup=false][,handoffs=auto|off][,timing=true][,drainer=thread|process]}. A bare argument
 * without '=' is taken as the config file, the way {@code -javaagent:dprof.jar=dprof.yaml} reads
 * naturally. The drainer warms up before {@code main} unless {@code warmup=false} (see
 * BENCHMARKS.md "Agent overhead": without it the drain path ran interpreted while the application
 * ran, and the drainer cost twice the CPU). {@code handoffs=} overrides the YAML's {@code handoffs:}
 * (one config file, two runs: {@code ./dprof bench handoff} measures with and without).
 * {@code timing=true} prints how long each phase of the start took ({@code StartPhases}; docs/CONFIG.md,
 * "Start-up"). {@code drainer=process} drains the rings in a process of its own instead of a thread of
 * the application's JVM (docs/DESIGN.md, "The drainer in its own process"); {@code thread} is the default.
 * {@code alsoTrace=true}, for the tests only (declared in {@code TestSettings}), makes a run in
 * statistics mode write its events as well, so that a test compares the two.
 */
record AgentArgs(Optional<Path> config, Optional<Path> out, boolean warmup, Optional<Boolean> handoffs,
                 boolean timing, boolean processDrainer, boolean alsoTrace) {

    static AgentArgs parse(String args) {
        Optional<Path> config = Optional.empty();
        Optional<Path> out = Optional.empty();
        boolean warmup = true;
        Optional<Boolean> handoffs = Optional.empty();
        boolean timing = false;
        boolean process = false;
        boolean alsoTrace = false;
        if (args == null || args.isBlank()) {
            return new AgentArgs(config, out, warmup, handoffs, timing, process, alsoTrace);
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
                case "warmup" -> warmup = bool(key, value);
                case "timing" -> timing = bool(key, value);
                case "alsoTrace" -> alsoTrace = bool(key, value);
                case "handoffs" -> {
                    if (!value.equals("auto") && !value.equals("off")) {
                        throw new IllegalArgumentException("agent argument handoffs: expected auto or off, found '"
                                + value + "'");
                    }
                    handoffs = Optional.of(value.equals("auto"));
                }
                case "drainer" -> {
                    if (!value.equals("thread") && !value.equals("process")) {
                        throw new IllegalArgumentException("agent argument drainer: expected thread or process, found '"
                                + value + "'");
                    }
                    process = value.equals("process");
                }
                default -> throw new IllegalArgumentException("unknown agent argument '" + key
                        + "' (expected config=FILE, out=DIR, warmup=true|false, handoffs=auto|off, timing=true|false,"
                        + " drainer=thread|process)");
            }
        }
        return new AgentArgs(config, out, warmup, handoffs, timing, process, alsoTrace);
    }

    private static boolean bool(String key, String value) {
        if (!value.equals("true") && !value.equals("false")) {
            throw new IllegalArgumentException("agent argument " + key + ": expected true or false, found '"
                    + value + "'");
        }
        return value.equals("true");
    }
}
