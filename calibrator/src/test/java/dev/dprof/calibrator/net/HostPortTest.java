package dev.dprof.calibrator.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class HostPortTest {
    @Test
    void parsesNamesAddressesAndBracketedIpv6() {
        assertEquals(new HostPort("base.example", 7100), HostPort.parse("base.example:7100"));
        assertEquals(new HostPort("10.0.0.1", 1), HostPort.parse("10.0.0.1:1"));
        assertEquals(new HostPort("::1", 65535), HostPort.parse("[::1]:65535"));
        assertEquals("[::1]:9", new HostPort("::1", 9).toString());
    }

    @Test
    void badInputIsOneLineNamingTheProblem() {
        for (String bad : new String[] {"nohost", ":7100", "host:", "host:x", "host:0", "host:70000", "::1:80",
                "[::1]80", "[::1"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> HostPort.parse(bad), bad);
            assertFalse(e.getMessage().contains("\n"), e.getMessage());
        }
    }

    @Test
    void anUnresolvableHostIsAFailureThatRetryingWillNotFix() {
        JoinException e = assertThrows(JoinException.class,
                () -> new HostPort("no-such-host.invalid", 7100).resolve());
        assertFalse(e.retryable());
        assertTrue(e.getMessage().contains("no-such-host.invalid"));
    }
}
