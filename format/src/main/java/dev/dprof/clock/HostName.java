package dev.dprof.clock;

import java.net.InetAddress;
import java.net.UnknownHostException;

/** This machine's host name, without a DNS round trip when the kernel already knows it. */
public final class HostName {
    private HostName() {
    }

    public static String get() {
        String env = System.getenv("HOSTNAME");
        if (env != null && !env.isBlank()) {
            return env;
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "localhost";
        }
    }
}
