package dev.dprof.cli.suggest;

import dev.dprof.agent.config.ClassPattern;
import dev.dprof.agent.instrument.Weaver;
import java.util.List;

/**
 * Which recorded frames may become regions. By default every class of the application: not the JDK's
 * (defined by the boot or platform class loader), not
 * dprof's own (the agent's packages, {@link Weaver#isOwn}), and never a method the agent could not weave
 * ({@link Frame#unweavable}). Whether a frame is the JDK's is {@link Frame#jdk}, from its class loader. {@code --include} patterns keep only the classes they match and may name JDK
 * classes; {@code --exclude} patterns remove classes. Both use the YAML's class globs ({@link ClassPattern},
 * docs/CONFIG.md "Patterns").
 */
public final class MethodFilter {
    private final List<ClassPattern> includes;
    private final List<ClassPattern> excludes;

    private MethodFilter(List<ClassPattern> includes, List<ClassPattern> excludes) {
        this.includes = includes;
        this.excludes = excludes;
    }

    /** The default filter: the application's classes. */
    public static MethodFilter application() {
        return new MethodFilter(List.of(), List.of());
    }

    /**
     * A filter from {@code --include} and {@code --exclude} globs.
     *
     * @throws IllegalArgumentException one line naming the option and the glob, for a glob that is not valid
     */
    public static MethodFilter of(List<String> includeGlobs, List<String> excludeGlobs) {
        return new MethodFilter(compile("--include", includeGlobs), compile("--exclude", excludeGlobs));
    }

    private static List<ClassPattern> compile(String option, List<String> globs) {
        return globs.stream().map(glob -> {
            try {
                return ClassPattern.forClass(glob);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(option + " '" + glob + "': " + e.getMessage(), e);
            }
        }).toList();
    }

    /** Whether {@code frame} may become a region. */
    public boolean accepts(Frame frame) {
        String name = frame.className();
        if (Weaver.isOwn(name) || frame.unweavable() != null) {
            return false;
        }
        for (ClassPattern exclude : excludes) {
            if (exclude.matches(name)) {
                return false;
            }
        }
        if (!includes.isEmpty()) {
            return includes.stream().anyMatch(p -> p.matches(name));
        }
        return !frame.jdk();
    }
}
