package dev.dprof.settings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Every setting is read by its owner ({@link DprofSettings}, {@code BootstrapSettings},
 * {@link TestSettings}) and listed in {@code docs/CONFIG.md}: the product's in "System properties and
 * environment variables", the tests' in its "Settings of the tests".
 */
class SettingsDeclaredTest {
    private static final String PRODUCT_SECTION = "## System properties and environment variables";
    private static final String TEST_SECTION = "### Settings of the tests";

    @Test
    void noCodeButTheOwnersReadsASetting() throws IOException {
        Path root = SettingsScan.root();
        List<String> violations = new ArrayList<>();
        int owners = 0;
        for (Path file : SettingsScan.sources(root)) {
            if (SettingsScan.OWNERS.contains(file.getFileName().toString())) {
                owners++;
                continue;
            }
            if (file.getFileName().toString().equals(SettingsScan.SELF_TEST)) {
                continue;
            }
            violations.addAll(SettingsScan.violations(root.relativize(file).toString(), Files.readString(file)));
        }
        assertEquals(SettingsScan.OWNERS.size(), owners, "one file per owner: " + SettingsScan.OWNERS);
        assertTrue(violations.isEmpty(), () -> "settings read or named outside their owners:\n" + String.join("\n", violations));
    }

    @Test
    void everyDeclaredSettingIsDocumentedInItsSection() throws IOException {
        Path root = SettingsScan.root();
        String config = Files.readString(root.resolve("docs/CONFIG.md"));
        int product = config.indexOf(PRODUCT_SECTION);
        int tests = config.indexOf(TEST_SECTION);
        assertTrue(product >= 0 && tests > product, "docs/CONFIG.md: no '" + PRODUCT_SECTION + "' followed by '" + TEST_SECTION + "'");
        int end = config.indexOf("\n## ", tests);
        String productText = config.substring(product, tests);
        String testText = config.substring(tests, end < 0 ? config.length() : end);
        Map<String, String> undocumented = new TreeMap<>();
        for (Path file : SettingsScan.sources(root)) {
            String owner = file.getFileName().toString();
            if (!SettingsScan.OWNERS.contains(owner)) {
                continue;
            }
            String section = owner.equals("TestSettings.java") ? testText : productText;
            SettingsScan.declared(Files.readString(file)).forEach((constant, name) -> {
                if (!section.contains("`" + name)) {
                    undocumented.put(name, owner + " " + constant);
                }
            });
        }
        assertTrue(undocumented.isEmpty(), () -> "declared but not listed in docs/CONFIG.md: " + undocumented);
    }

    @Test
    void theScanCatchesWhatItShould() {
        String source = String.join("\n",
                "class X {",
                "    String a = System.getProperty(\"dprof.brandNew\");",
                "    String b = System.getenv(\"DPROF_NEW\");",
                "    String c = System.getProperty(\"dprof.\" + suffix);",
                "    String d = \"-Ddprof.rank=\" + rank;",
                "    String e = System.getProperty(name);",
                "    String f = System.getProperty(\"java.home\");",
                "    String g = \"dprof.yaml\";",
                "    // System.getenv(\"IN_A_COMMENT\")",
                "}");
        List<String> found = SettingsScan.violations("X.java", source);
        for (int line : new int[] {2, 3, 4, 5, 6}) {
            assertTrue(found.stream().anyMatch(v -> v.startsWith("X.java:" + line + ":")), () -> "line " + line + " missed: " + found);
        }
        assertTrue(found.stream().noneMatch(v -> v.matches("X\\.java:(7|8|9):.*")), () -> "false alarm: " + found);
        assertEquals(Map.of("ENV", "DPROF_X", "P", "dprof.x.y"), SettingsScan.declared(
                "public static final String ENV = \"DPROF_X\";\npublic static final String P = \"dprof.x.y\";\n"
                        + "static final String NOT_PUBLIC = \"dprof.z\";"));
    }
}
