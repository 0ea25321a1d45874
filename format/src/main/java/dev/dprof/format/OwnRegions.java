package dev.dprof.format;

import java.util.Optional;

/**
 * The region names the agent gives the regions it records by itself: a user's region may not take one,
 * for regions are one by name (in a process and across processes), and a YAML region named
 * {@code tcp.write} became one region with the TCP writes, of the YAML's kind.
 */
public final class OwnRegions {
    /** The prefix of the regions of the {@code dev.dprof.api.DProf} calls ({@code DProf.send}, ...). */
    public static final String API_PREFIX = "DProf.";

    private OwnRegions() {
    }

    /** What the agent's own region of that name is, or empty when the name is free for the user. */
    public static Optional<String> ownerOf(String name) {
        if (name.equals(TcpRegions.WRITE) || name.equals(TcpRegions.READ)) {
            return Optional.of("dprof's own TCP " + (name.equals(TcpRegions.WRITE) ? "send" : "receive")
                    + " region '" + name + "'");
        }
        if (name.startsWith(API_PREFIX)) {
            return Optional.of("the names of dprof's API regions ('" + API_PREFIX + "*')");
        }
        for (HandoffRegions.Kind kind : HandoffRegions.Kind.values()) {
            String prefix = kind.yamlName() + ": ";
            if (kind != HandoffRegions.Kind.CUSTOM && name.startsWith(prefix)) {
                return Optional.of("the names of dprof's own handoff sites ('" + prefix + "…')");
            }
        }
        return Optional.empty();
    }
}
