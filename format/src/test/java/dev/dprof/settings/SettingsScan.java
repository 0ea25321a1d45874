package dev.dprof.settings;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Reads the repository's Java sources for what {@link SettingsDeclaredTest} checks: the settings the
 * settings classes declare, and every place outside them that reads a setting itself.
 */
final class SettingsScan {
    /** The classes that own the settings, by file name; any other class reads none itself. */
    static final Set<String> OWNERS = Set.of("DprofSettings.java", "BootstrapSettings.java", "TestSettings.java");
    /** The scan's own test, whose sample source breaks every rule on purpose. */
    static final String SELF_TEST = "SettingsDeclaredTest.java";
    /** Declared names: a system property {@code dprof.…} or an environment variable. */
    private static final Pattern DECLARED = Pattern.compile(
            "public static final String (\\w+) = \"(dprof\\.[A-Za-z.]+|[A-Z][A-Z_]*)\";");
    /** A call that reads (or writes) a system property or the environment, up to its opening parenthesis. */
    private static final Pattern READ = Pattern.compile(
            "(System\\.getProperty|System\\.getenv|System\\.setProperty|System\\.clearProperty|Integer\\.getInteger"
                    + "|Long\\.getLong|Boolean\\.getBoolean)\\s*\\(");
    /** A string literal that names a dprof property, or a {@code -D} flag or a prefix that builds one. */
    private static final Pattern NAME_LITERAL = Pattern.compile("\"(-D)?(dprof\\.[A-Za-z.]*)");
    /**
     * Reads whose property name is not dprof's to choose: the {@code {property: NAME}} value sources
     * of the YAML (the user names it) and slf4j's level, which the agent sets while its logger starts.
     */
    private static final Set<String> NAMED_ELSEWHERE = Set.of(
            "RegionTable.java:property.name()", "Weaver.java:p.name()", "DProfAgent.java:level");
    /** Names of dprof's files that are also property names. */
    private static final Set<String> FILE_NAMES = Set.of("dprof.jar", "dprof.yaml");

    private SettingsScan() {
    }

    /** The repository root: the first folder above the working directory that holds the launcher and the root pom. */
    static Path root() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve("dprof")) && Files.isRegularFile(p.resolve("pom.xml"))
                    && Files.isDirectory(p.resolve("format"))) {
                return p;
            }
        }
        throw new IllegalStateException("no repository root above " + Path.of("").toAbsolutePath());
    }

    /** Every Java source under {@code src/main/java} or {@code src/test/java} of every module. */
    static List<Path> sources(Path root) {
        try (Stream<Path> all = Files.walk(root)) {
            return all.filter(p -> p.toString().endsWith(".java"))
                    .filter(p -> !root.relativize(p).toString().contains("/target/") && !root.relativize(p).startsWith(".git"))
                    .filter(p -> p.toString().contains("/src/main/java/") || p.toString().contains("/src/test/java/"))
                    .sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The names declared in one owner's source: constant name to property or variable name. */
    static Map<String, String> declared(String source) {
        Map<String, String> names = new LinkedHashMap<>();
        Matcher m = DECLARED.matcher(source);
        while (m.find()) {
            names.put(m.group(1), m.group(2));
        }
        return names;
    }

    /**
     * The places in one non-owner source that read a setting themselves or spell out a dprof
     * property's name (or a prefix it is built from), as {@code file:line: what}.
     */
    static List<String> violations(String file, String source) {
        List<String> found = new ArrayList<>();
        String[] lines = source.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            if (line.trim().startsWith("*") || line.trim().startsWith("//")) {
                continue; // javadoc and comments name settings, they do not read them
            }
            String where = file + ":" + (i + 1) + ": ";
            Matcher read = READ.matcher(line);
            while (read.find()) {
                String call = read.group(1);
                String argument = firstArgument(line, read.end());
                if (call.equals("System.getenv")) {
                    found.add(where + "reads the environment (" + argument + "): declare it in a settings class");
                } else if (!argument.startsWith("\"") // a literal dprof name is caught below
                        && !NAMED_ELSEWHERE.contains(Path.of(file).getFileName() + ":" + argument)) {
                    found.add(where + call + "(" + argument + "): a property named elsewhere; read it in a settings class");
                }
            }
            Matcher literal = NAME_LITERAL.matcher(line);
            while (literal.find()) {
                boolean whole = line.startsWith("\"", literal.end()); // else a message that starts with a name
                String name = literal.group(2);
                if (literal.group(1) != null) {
                    found.add(where + "spells out the flag \"-D" + name + "…\": use \"-D\" + the settings class's constant");
                } else if (whole && !FILE_NAMES.contains(name)) {
                    found.add(where + "spells out \"" + name + "\": use (or declare) the settings class's constant");
                }
            }
        }
        return found;
    }

    /** The first argument of the call whose parenthesis opens just before {@code from}, as written. */
    private static String firstArgument(String line, int from) {
        int depth = 0;
        for (int i = from; i < line.length(); i++) {
            char c = line.charAt(i);
            if (c == '(') {
                depth++;
            } else if ((c == ')' || c == ',') && depth == 0) {
                return line.substring(from, i).trim();
            } else if (c == ')') {
                depth--;
            }
        }
        return line.substring(from).trim();
    }
}
