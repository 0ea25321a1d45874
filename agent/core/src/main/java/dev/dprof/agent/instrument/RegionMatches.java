package dev.dprof.agent.instrument;

import dev.dprof.agent.config.ClassPattern;
import dev.dprof.agent.config.RegionSpec;
import dev.dprof.format.WeavingSummary;
import dev.dprof.format.WeavingSummary.Reason;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.type.TypeDescription;

/**
 * What each YAML region matched while classes were woven, and, for a region that matched nothing,
 * why not: no class of that name was loaded, the class has no such method, the descriptor did not
 * match, or a method matched and was not woven — with the nearest existing name ({@link NearestName}).
 * The weaver tells it what it wove and refused; at the end of the run {@link #summary} puts it
 * together with the classes the JVM loaded ({@link WeavingSummary}, written to the queue and printed).
 *
 * <h2>Implementation notes</h2>
 * Called from the class-file transformer, on whatever thread loads a class, but only for classes whose
 * name a region's class pattern selects: never on the path of other classes. Methods are synchronized;
 * a class woven twice (two loaders, a retransformation) counts once, by name. For a region that wove
 * nothing, what it found is kept as the furthest it got (a method name that matched beats a class that
 * only had other methods), from the first class that got there; a region with a woven method keeps
 * nothing but its count.
 */
public final class RegionMatches {
    private final String configSource;
    private final List<RegionSpec> specs;
    private final List<ClassPattern> classes;
    private final List<ClassPattern> methods;
    /** Per region: its woven methods, as {@code class#name descriptor}. */
    private final List<Set<String>> woven = new ArrayList<>();
    /** Per region: the classes it wove a method in. */
    private final List<Set<String>> wovenIn = new ArrayList<>();
    /** Per region: whether a class its class pattern selects was offered for weaving. */
    private final boolean[] classSeen;
    /** Per region that wove nothing: the furthest it got, or null. */
    private final Found[] found;

    /** How far a region that wove nothing got, and what to name as nearest. */
    private record Found(Reason reason, String className, Set<String> candidates, String detail) {
    }

    public RegionMatches(List<RegionSpec> specs, String configSource) {
        this.configSource = configSource;
        this.specs = List.copyOf(specs);
        this.classes = new ArrayList<>();
        this.methods = new ArrayList<>();
        for (RegionSpec spec : specs) {
            classes.add(ClassPattern.forClass(spec.classPattern()));
            methods.add(ClassPattern.forMethod(spec.methodPattern()));
            woven.add(new HashSet<>());
            wovenIn.add(new HashSet<>());
        }
        classSeen = new boolean[specs.size()];
        found = new Found[specs.size()];
    }

    /** The region that selects {@code method} of {@code type}: the first in the YAML's order, or -1. */
    int select(TypeDescription type, MethodDescription method) {
        for (int i = 0; i < specs.size(); i++) {
            if (selects(i, type.getName(), method)) {
                return i;
            }
        }
        return -1;
    }

    private boolean selects(int region, String typeName, MethodDescription method) {
        return classes.get(region).matches(typeName) && methods.get(region).matches(methodName(method))
                && specs.get(region).descriptor().map(d -> d.equals(method.getDescriptor())).orElse(true);
    }

    private static String methodName(MethodDescription method) {
        return method.isConstructor() ? "<init>" : method.getInternalName();
    }

    /** {@code method} of {@code type} was woven for the region. */
    synchronized void woven(int region, TypeDescription type, MethodDescription method) {
        woven.get(region).add(type.getName() + "#" + methodName(method) + method.getDescriptor());
        wovenIn.get(region).add(type.getName());
        found[region] = null;
    }

    /** {@code method} matched the region and was left alone, for the reason {@code why}. */
    synchronized void refused(int region, TypeDescription type, MethodDescription method, String why) {
        if (woven.get(region).isEmpty()) {
            keep(region, new Found(Reason.NOT_WOVEN, type.getName(), Set.of(),
                    type.getName() + "#" + methodName(method) + method.getDescriptor() + ": " + why));
        }
    }

    /**
     * {@code type} was offered for weaving: for every region its name selects that wove nothing in
     * it, how far the region got there.
     */
    synchronized void classSeen(TypeDescription type) {
        String name = type.getName();
        for (int i = 0; i < specs.size(); i++) {
            if (!classes.get(i).matches(name)) {
                continue;
            }
            classSeen[i] = true;
            if (!woven.get(i).isEmpty()) {
                continue;
            }
            keep(i, inClass(i, type));
        }
    }

    /** What region {@code i}, which wove nothing in {@code type}, finds there. */
    private Found inClass(int i, TypeDescription type) {
        Set<String> names = new TreeSet<>();
        Set<String> sameName = new TreeSet<>();
        String detail = "";
        boolean selected = false;
        for (MethodDescription.InDefinedShape m : type.getDeclaredMethods()) {
            if (m.isTypeInitializer()) {
                continue;
            }
            String methodName = methodName(m);
            names.add(methodName);
            if (!methods.get(i).matches(methodName)) {
                continue;
            }
            sameName.add(methodName + m.getDescriptor());
            if (!selects(i, type.getName(), m)) {
                continue;
            }
            selected = true;
            if (m.isAbstract() || m.isNative()) {
                detail = methodName + m.getDescriptor() + " is " + (m.isNative() ? "native" : "abstract")
                        + ": only a method with a body can be woven";
            } else {
                int first = select(type, m);
                if (first != i && first >= 0) {
                    detail = methodName + m.getDescriptor() + " is taken by region '" + specs.get(first).name()
                            + "' (" + configSource + ":" + specs.get(first).line() + "), which comes first";
                }
            }
        }
        if (selected) {
            return new Found(Reason.NOT_WOVEN, type.getName(), Set.of(), detail);
        }
        if (!sameName.isEmpty()) {
            return new Found(Reason.DESCRIPTOR, type.getName(), sameName, "");
        }
        return new Found(methods.get(i).isExact() ? Reason.NO_METHOD : Reason.NO_METHOD_MATCHED, type.getName(),
                names, "");
    }

    /** Keeps {@code f} for region {@code i} if it got further than what was kept (the first such). */
    private void keep(int i, Found f) {
        Found kept = found[i];
        if (kept == null || rank(f.reason) > rank(kept.reason)) {
            found[i] = f;
        }
    }

    private static int rank(Reason reason) {
        return switch (reason) {
            case NO_METHOD, NO_METHOD_MATCHED -> 1;
            case DESCRIPTOR -> 2;
            case NOT_WOVEN -> 3;
            default -> 0;
        };
    }

    /**
     * Every region with its woven methods, or why it has none.
     *
     * @param loadedClasses the binary names of the classes the JVM has loaded: where a class the YAML names
     *                      exactly was never offered for weaving, whether it was loaded at all and what is near
     */
    public synchronized WeavingSummary summary(Iterable<String> loadedClasses) {
        List<WeavingSummary.Region> regions = new ArrayList<>();
        Set<String> allMethods = new HashSet<>();
        Set<String> allClasses = new HashSet<>();
        for (int i = 0; i < specs.size(); i++) {
            allMethods.addAll(woven.get(i));
            allClasses.addAll(wovenIn.get(i));
            regions.add(region(i, loadedClasses));
        }
        return new WeavingSummary(specs.size(), allMethods.size(), allClasses.size(), regions);
    }

    private WeavingSummary.Region region(int i, Iterable<String> loadedClasses) {
        RegionSpec spec = specs.get(i);
        Reason reason = Reason.MATCHED;
        String nearest = "";
        String detail = "";
        Found f = found[i];
        if (!woven.get(i).isEmpty()) {
            reason = Reason.MATCHED;
        } else if (f != null) {
            reason = f.reason;
            detail = f.detail;
            if (f.reason == Reason.NO_METHOD) {
                nearest = NearestName.method(spec.methodPattern(), f.candidates);
            } else if (f.reason == Reason.DESCRIPTOR) {
                nearest = NearestName.any(spec.methodPattern() + spec.descriptor().orElse(""), f.candidates);
            }
            if (!classes.get(i).isExact() && f.reason != Reason.NOT_WOVEN) {
                detail = "first in " + f.className;
            }
        } else if (!classes.get(i).isExact()) {
            reason = Reason.NO_CLASS_MATCHED;
        } else if (isLoaded(spec.classPattern(), loadedClasses)) {
            reason = Reason.NOT_WOVEN;
            detail = classSeen[i] ? "" : "the class was loaded but not offered for weaving: excluded, one of dprof's own,"
                    + " or not modifiable";
        } else {
            reason = Reason.NO_CLASS;
            nearest = NearestName.className(spec.classPattern(), loadedClasses);
        }
        return new WeavingSummary.Region(spec.name(), configSource + ":" + spec.line(), spec.classPattern(),
                spec.methodPattern(), spec.descriptor().orElse(""), woven.get(i).size(), reason, nearest, detail);
    }

    private static boolean isLoaded(String name, Iterable<String> loadedClasses) {
        for (String loaded : loadedClasses) {
            if (loaded.equals(name)) {
                return true;
            }
        }
        return false;
    }

    /** The binary names of the loaded classes worth naming: no arrays, no hidden or synthetic lambda classes. */
    public static List<String> loadedClassNames(Class<?>[] loaded) {
        List<String> names = new ArrayList<>(loaded.length);
        for (Class<?> c : loaded) {
            if (!c.isArray() && !c.isHidden() && !c.isSynthetic()) {
                names.add(c.getName());
            }
        }
        return names;
    }
}
