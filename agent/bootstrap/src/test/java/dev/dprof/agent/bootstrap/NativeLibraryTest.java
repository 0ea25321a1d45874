package dev.dprof.agent.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

/** The library is picked by the running OS and architecture, as the JDK spells them. */
class NativeLibraryTest {
    @Test
    void picksTheFolderOfTheOsAndArchitecture() {
        String dir = NativeLibrary.RESOURCE_DIR;
        assertEquals(dir + "linux-x86_64/libdprof.so", NativeLibrary.resourceFor("Linux", "amd64"));
        assertEquals(dir + "linux-x86_64/libdprof.so", NativeLibrary.resourceFor("Linux", "x86_64"));
        assertEquals(dir + "linux-aarch64/libdprof.so", NativeLibrary.resourceFor("Linux", "aarch64"));
        assertEquals(dir + "darwin-aarch64/libdprof.dylib", NativeLibrary.resourceFor("Mac OS X", "aarch64"));
        assertEquals(dir + "darwin-x86_64/libdprof.dylib", NativeLibrary.resourceFor("Mac OS X", "x86_64"));
    }

    @Test
    void noLibraryElsewhere() {
        assertNull(NativeLibrary.resourceFor("Linux", "riscv64"));
        assertNull(NativeLibrary.resourceFor("Linux", "ppc64le"));
        assertNull(NativeLibrary.resourceFor("Windows 11", "amd64"));
        assertNull(NativeLibrary.resourceFor("FreeBSD", "amd64"));
    }
}
