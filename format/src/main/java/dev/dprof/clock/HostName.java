package dev.dprof.clock;

import dev.dprof.settings.DprofSettings;
import java.net.InetAddress;
import java.net.UnknownHostException;

/** This machine's host name, without a DNS round trip when the kernel already knows it. */
public final class HostName {
    private HostName() {
    }

    public static String get() {
        java.util.Optional<String> env = DprofSettings.hostName();
        if (env.isPresent()) {
            return env.get();
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "localhost";
        }
    }
}
