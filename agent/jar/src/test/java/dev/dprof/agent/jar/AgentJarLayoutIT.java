package dev.dprof.agent.jar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.settings.DprofSettings;
import dev.dprof.testsupport.TestSettings;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;

/**
 * The build's check on the packaged agent jar ({@code -Ddprof.jar}, set by failsafe): the application,
 * which gets the jar on its class path, can see nothing but dprof's own classes. Every class file
 * outside {@code dev/dprof/} must be in the isolated part ({@code inst/}, as {@code .classdata}),
 * and the isolated part holds no loadable {@code .class} file.
 */
class AgentJarLayoutIT {
    @Test
    void theApplicationSeesOnlyDprofsOwnClasses() throws IOException {
        List<String> exposed = new ArrayList<>();
        try (JarFile jar = agentJar()) {
            Enumeration<JarEntry> entries = jar.entries();
            while (entries.hasMoreElements()) {
                String name = entries.nextElement().getName();
                boolean isolated = name.startsWith(AgentClassLoader.PREFIX);
                if (isolated ? name.endsWith(".class") : !visibleAllowed(name)) {
                    exposed.add(name);
                }
            }
        }
        assertTrue(exposed.isEmpty(), () -> exposed.size() + " entries of dprof.jar are neither dprof's own nor isolated, e.g. "
                + exposed.subList(0, Math.min(10, exposed.size())));
    }

    @Test
    void theIsolatedPartHoldsTheAgentAndItsLibrariesAndNoTools() throws IOException {
        try (JarFile jar = agentJar()) {
            for (String isolated : List.of("dev/dprof/agent/DProfAgent", "dev/dprof/agent/sink/QueueSink",
                    "net/bytebuddy/ByteBuddy", "org/objectweb/asm/ClassReader",
                    "net/openhft/chronicle/queue/ChronicleQueue", "org/yaml/snakeyaml/Yaml",
                    "dev/dprof/calibrator/net/AgentCalibration")) {
                assertNotNull(jar.getEntry(AgentClassLoader.PREFIX + isolated + AgentClassLoader.CLASS_DATA), isolated);
            }
            assertNotNull(jar.getEntry("dev/dprof/agent/bootstrap/Probes.class"), "the bootstrap classes are at the root");
            for (String tool : List.of("com/fasterxml/jackson/databind/ObjectMapper", "com/google/protobuf/Message",
                    "picocli/CommandLine", "dev/dprof/cli/Main", "dev/dprof/consolidator/consolidate/Consolidator",
                    "dev/dprof/report/html/ReportData")) {
                assertNull(jar.getEntry(tool + ".class"), tool);
                assertNull(jar.getEntry(AgentClassLoader.PREFIX + tool + AgentClassLoader.CLASS_DATA), tool);
            }
        }
    }

    @Test
    void itsManifestStartsTheIsolatingEntryPointAndOpensNothingToTheApplication() throws IOException {
        try (JarFile jar = agentJar()) {
            Attributes main = jar.getManifest().getMainAttributes();
            assertEquals(AgentMain.class.getName(), main.getValue("Premain-Class"));
            assertEquals(AgentMain.class.getName(), main.getValue("Agent-Class"));
            assertNull(main.getValue("Add-Opens"));
            assertNull(main.getValue("Add-Exports"));
            assertNull(main.getValue("Boot-Class-Path"));
            assertNull(main.getValue("Main-Class"), "the command line is dprof-cli.jar, not the agent");
        }
    }

    /** At the root: dprof's own classes and resources (the native library), and the manifest. */
    private static boolean visibleAllowed(String name) {
        return name.startsWith("dev/dprof/") || name.equals("dev/") || name.equals("META-INF/")
                || name.equals("META-INF/MANIFEST.MF") || name.equals(AgentClassLoader.PREFIX);
    }

    private static JarFile agentJar() throws IOException {
        return new JarFile(DprofSettings.agentJar().orElseThrow(() -> TestSettings.notSetByTheBuild(DprofSettings.AGENT_JAR_PROPERTY)).toFile());
    }
}
