package dev.dprof.agent;

import java.nio.file.Path;
import java.util.Optional;

/**
 * The agent's argument string: {@code config=FILE[,out=DIR]}. A bare argument without '=' is
 * taken as the config file, the way {@code -javaagent:dprof.jar=dprof.yaml} reads naturally.
 */
record AgentArgs(Optional<Path> config, Optional<Path> out) {

    static AgentArgs parse(String args) {
        Optional<Path> config = Optional.empty();
        Optional<Path> out = Optional.empty();
        if (args == null || args.isBlank()) {
            return new AgentArgs(config, out);
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
                default -> throw new IllegalArgumentException("unknown agent argument '" + key
                        + "' (expected config=FILE, out=DIR)");
            }
        }
        return new AgentArgs(config, out);
    }
}
