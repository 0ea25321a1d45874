package dev.dprof.calibrator.net;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

/**
 * A parent's address as the user writes it: {@code host:port}, or {@code [ipv6]:port}. Resolved
 * only when a node joins, so a bad name is reported there, in one line.
 *
 * @param host a host name or address (IPv6 without brackets)
 * @param port 1..65535
 */
public record HostPort(String host, int port) {
    public HostPort {
        if (host == null || host.isEmpty()) {
            throw new IllegalArgumentException("empty host");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port " + port + " is out of range (expected 1..65535)");
        }
    }

    /**
     * Parses {@code host:port} or {@code [v6]:port}.
     *
     * @throws IllegalArgumentException with one line saying what is wrong
     */
    public static HostPort parse(String text) {
        String host;
        String port;
        if (text.startsWith("[")) {
            int close = text.indexOf(']');
            if (close < 0 || close + 1 >= text.length() || text.charAt(close + 1) != ':') {
                throw new IllegalArgumentException("expected [ipv6-address]:port, found '" + text + "'");
            }
            host = text.substring(1, close);
            port = text.substring(close + 2);
        } else {
            int colon = text.lastIndexOf(':');
            if (colon < 0 || text.indexOf(':') != colon) {
                throw new IllegalArgumentException("expected host:port (IPv6 as [address]:port), found '" + text + "'");
            }
            host = text.substring(0, colon);
            port = text.substring(colon + 1);
        }
        if (host.isEmpty()) {
            throw new IllegalArgumentException("expected host:port, found '" + text + "' (no host)");
        }
        int p;
        try {
            p = Integer.parseInt(port);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("port '" + port + "' in '" + text + "' is not a number 1..65535");
        }
        return new HostPort(host, p);
    }

    /** Looks the host up. */
    public InetSocketAddress resolve() throws JoinException {
        try {
            return new InetSocketAddress(InetAddress.getByName(host), port);
        } catch (UnknownHostException e) {
            throw new JoinException("cannot resolve calibration base host '" + host + "'", false);
        }
    }

    @Override
    public String toString() {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }
}
