package dev.dprof.testsupport;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** JDK homes are known by their {@code release} file and their {@code bin/java}, nothing else. */
class JdksTest {
    @Test
    void theRunningJdkStatesItsOwnFeatureRelease() {
        assertEquals(Runtime.version().feature(), Jdks.feature(Path.of(System.getProperty("java.home"))));
    }

    @Test
    void homesAreReadByTheirReleaseFileAndSortedByName(@TempDir Path jvms) throws Exception {
        Path temurin = home(jvms.resolve("temurin-25-jdk"), "JAVA_VERSION=\"25.0.3\"\nIMPLEMENTOR=\"Eclipse Adoptium\"\n");
        Path openjdk = home(jvms.resolve("java-17-openjdk"), "JAVA_VERSION=\"17.0.15\"\n");
        Path old = home(jvms.resolve("java-8-openjdk"), "JAVA_VERSION=\"1.8.0_402\"\n");
        home(jvms.resolve("broken"), "IMPLEMENTOR=\"nobody\"\n");
        Files.createDirectories(jvms.resolve("no-java"));
        Files.writeString(jvms.resolve("no-java/release"), "JAVA_VERSION=\"21\"\n");

        assertEquals(25, Jdks.feature(temurin));
        assertEquals(17, Jdks.feature(openjdk));
        assertEquals(8, Jdks.feature(old));
        assertEquals(0, Jdks.feature(jvms.resolve("broken")), "no JAVA_VERSION");
        assertEquals(0, Jdks.feature(jvms.resolve("no-java")), "no bin/java");
        assertEquals(List.of(openjdk, old, temurin), Jdks.installedUnder(jvms));
        assertEquals(List.of(), Jdks.installedUnder(jvms.resolve("absent")));
    }

    private static Path home(Path home, String release) throws Exception {
        Path java = Files.createDirectories(home.resolve("bin")).resolve("java");
        Files.writeString(java, "#!/bin/sh\n");
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.writeString(home.resolve("release"), release);
        return home;
    }
}
