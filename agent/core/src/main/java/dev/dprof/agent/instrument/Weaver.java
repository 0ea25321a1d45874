package dev.dprof.agent.instrument;

import dev.dprof.agent.bootstrap.Probes;
import dev.dprof.agent.bootstrap.TcpProbes;
import dev.dprof.format.HandoffRegions;
import dev.dprof.format.OwnRegions;
import dev.dprof.format.TcpRegions;
import dev.dprof.agent.config.AgentConfig;
import dev.dprof.agent.config.ClassPattern;
import dev.dprof.agent.config.ConfigException;
import dev.dprof.agent.config.RegionKind;
import dev.dprof.agent.config.RegionSpec;
import dev.dprof.agent.config.ValueSource;
import dev.dprof.settings.DprofSettings;
import java.lang.instrument.IllegalClassFormatException;
import java.lang.instrument.Instrumentation;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.agent.builder.ResettableClassFileTransformer;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.annotation.AnnotationDescription;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.dynamic.scaffold.TypeValidation;
import net.bytebuddy.implementation.bytecode.StackManipulation;
import net.bytebuddy.implementation.bytecode.member.MethodInvocation;
import net.bytebuddy.matcher.ElementMatchers;
import net.bytebuddy.utility.JavaModule;

/**
 * Weaves the selected regions into classes as they load, and into classes loaded before the
 * agent (retransformation): YAML regions by class/method pattern, methods annotated
 * {@code @dev.dprof.api.Region}, and the no-op calls of {@code dev.dprof.api.DProf}.
 *
 * <p>Never woven: the agent's own classes (they would record themselves), and what the YAML
 * excludes. A method that cannot take its region (a key that names no such argument, say) is
 * left alone with one line on stderr; the rest of its class is woven.
 */
public final class Weaver {
    static final String REGION_ANNOTATION = "dev.dprof.api.Region";
    static final String API_CLASS = "dev.dprof.api.DProf";
    private static final String[] OWN_PACKAGES = {
        "dev.dprof.agent.", "dev.dprof.shaded.", "dev.dprof.format.", "dev.dprof.clock.",
        "dev.dprof.calibrator.", "dev.dprof.consolidator.", "dev.dprof.cli."};
    private static final int MAX_REPORTED_FAILURES = 20;
    /** Calls of the class-file filter per {@link #warmUpFilter}. */
    private static final int FILTER_WARM_CALLS = 10_000;

    private final AgentConfig config;
    private final RegionTable table;
    private final List<Selector> selectors = new ArrayList<>();
    private final List<ClassPattern> excludes = new ArrayList<>();
    private final MethodDescription keyOf;
    private final StackManipulation adviceFailed;
    private final Consumer<String> warn;
    private final AtomicInteger failures = new AtomicInteger();
    private final HandoffWeaving handoffs;
    private final RegionMatches matches;
    /** The agent {@link #prepare} built; installed by {@link #install}. */
    private AgentBuilder.Identified.Extendable agent;
    /** The rewrite of monitor calls ({@link #prepare} makes it, {@link #install} adds it), or null when not recorded. */
    private MonitorCallSites monitors;
    private boolean deferHandoffs;
    /** Loaded handoff classes of the JDK left for {@link #weaveDeferred} (guarded by this). */
    private final List<Class<?>> deferred = new ArrayList<>();

    /**
     * A YAML region with its compiled class pattern; {@code index} is its place in the YAML. Which methods
     * it selects is {@link RegionMatches#select}'s to say.
     */
    private record Selector(int index, RegionSpec spec, ClassPattern type, int regionId) {
    }

    public Weaver(AgentConfig config, RegionTable table, Consumer<String> warn) throws ConfigException {
        this.config = config;
        this.table = table;
        this.warn = warn;
        for (RegionSpec spec : config.regions()) {
            selectors.add(new Selector(selectors.size(), spec, ClassPattern.forClass(spec.classPattern()),
                    table.idOf(spec)));
        }
        matches = new RegionMatches(config.regions(), table.configSource());
        for (String exclude : config.exclude()) {
            excludes.add(ClassPattern.forClass(exclude));
        }
        try {
            keyOf = new MethodDescription.ForLoadedMethod(Probes.class.getMethod("keyOf", Object.class));
            adviceFailed = MethodInvocation.invoke(new MethodDescription.ForLoadedMethod(
                    Probes.class.getMethod("adviceFailed", Throwable.class)));
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException(e);
        }
        handoffs = new HandoffWeaving(config.handoffs(), table, adviceFailed);
    }

    /** What the YAML's regions matched so far, and why one matched nothing. */
    public RegionMatches matches() {
        return matches;
    }

    /**
     * Builds the ByteBuddy agent, without installing it: the first use of ByteBuddy in a JVM loads and
     * initializes several hundred of its classes (about 0.3 s of a fresh JVM), which the start does
     * while the drainer opens its queue on its own thread. {@link #install} calls it if the start did not.
     */
    public synchronized void prepare(Instrumentation inst) {
        if (agent == null) {
            primeFilter(inst);
            if (config.handoffs().contains(HandoffRegions.Kind.MONITOR)) {
                // Made, and its scan run once, before any class load can reach it (see primeFilter).
                monitors = new MonitorCallSites(this::isApplication, table, this::failed);
                MonitorCallSites.namesMonitorMethod(new byte[0]);
            }
            agent = new AgentBuilder.Default(new ByteBuddy().with(TypeValidation.DISABLED))
                    .disableClassFormatChanges()
                    .with(AgentBuilder.RedefinitionStrategy.RETRANSFORMATION)
                    .with(new Discovery())
                    .with(AgentBuilder.RedefinitionStrategy.Listener.ErrorEscalating.FAIL_LAST)
                    .with(AgentBuilder.InitializationStrategy.NoOp.INSTANCE)
                    .with(AgentBuilder.TypeStrategy.Default.DECORATE)
                    .with(new FailureListener())
                    .with(NameFilter::new)
                    .ignore(ElementMatchers.none())
                    .type((type, loader, module, redefined, domain) -> isCandidate(type, loader))
                    .transform(this::transform);
        }
    }

    /**
     * Installs the transformer, retransforms what is already loaded, and weaves now the classes the
     * YAML names exactly (see {@link #loadNamedClasses}). With {@code deferHandoffs}, the JDK classes
     * that carry handoffs and were loaded before the agent ({@code Thread}, the futures, the queues and
     * the fork/join classes that the JVM and the agent's own libraries loaded) are left for
     * {@link #weaveDeferred}, which the start runs on a thread of its own beside the drainer's warm-up.
     */
    public synchronized ResettableClassFileTransformer install(Instrumentation inst, boolean deferHandoffs) {
        prepare(inst);
        this.deferHandoffs = deferHandoffs;
        ResettableClassFileTransformer transformer = agent.installOn(inst);
        if (monitors != null) {
            inst.addTransformer(monitors, false);
        }
        loadNamedClasses(ClassLoader.getSystemClassLoader());
        return transformer;
    }

    /**
     * Retransforms the classes {@link #install} deferred; a class that cannot be woven is named on
     * stderr, as at installation, and runs unprofiled. Until it returns, a handoff through those
     * classes may run unwoven; the start waits for it before {@code main}. (Were it left to run beside
     * the application, what ran unwoven would only lose edges, as when attaching: a queue first met
     * woven enters what it holds unstamped (QueueHandoff, "made before the agent"), and a take or join
     * whose put or end ran unwoven finds no key; but queues made meanwhile would lose their site.)
     */
    public void weaveDeferred(Instrumentation inst) {
        List<Class<?>> classes;
        synchronized (this) {
            classes = List.copyOf(deferred);
            deferred.clear();
        }
        if (classes.isEmpty()) {
            return;
        }
        try {
            inst.retransformClasses(classes.toArray(new Class<?>[0]));
        } catch (Throwable batch) {
            // One class's failure fails the whole batch: again one by one, so only that class stays unwoven.
            for (Class<?> c : classes) {
                try {
                    inst.retransformClasses(c);
                } catch (Throwable t) {
                    failed(c.getName(), t);
                }
            }
        }
    }

    /**
     * The loaded classes that ByteBuddy's retransformation at installation looks at: those whose name
     * selects them, and, of loaders other than the JDK's, those that may carry {@code @Region}. Without
     * it ByteBuddy described and matched each of the JVM's loaded classes (some 2 000 at the start),
     * which cost the start about 0.1 s of interpreted code. The handoff classes of the JDK go to
     * {@link #deferred} when the installation defers them.
     */
    private final class Discovery implements AgentBuilder.RedefinitionStrategy.DiscoveryStrategy {
        @Override
        public Iterable<Iterable<Class<?>>> resolve(Instrumentation inst) {
            List<Class<?>> now = new ArrayList<>();
            for (Class<?> c : inst.getAllLoadedClasses()) {
                if (c.isArray() || c.isPrimitive() || c.isHidden() || !inst.isModifiableClass(c)) {
                    continue;
                }
                ByName b = byName(c.getName());
                if (b == ByName.SKIP
                        || b == ByName.IF_ANNOTATED && (isJdkLoader(c.getClassLoader()) || isAgentJars(c))) {
                    continue;
                }
                if (deferHandoffs && handoffs.weaves(c.getName())) {
                    deferred.add(c);
                } else {
                    now.add(c);
                }
            }
            return List.of(now);
        }
    }

    /**
     * Loads, without initializing them, the classes that the YAML names exactly and the system class
     * loader can find, so that they are woven before {@code main}. Left to load when the application
     * first uses them, such a class is woven while the application runs: K-Means loads its worker
     * class just before its iterations, and ByteBuddy's parser, hot from the weaving, then kept the
     * C2 compiler from the application's own loop for 50–100 ms (BENCHMARKS.md, "Agent overhead").
     * Loading is all this does: no static initializer runs before the application's first use.
     * A class that does not load here (another loader's, say) is woven when it loads.
     */
    private void loadNamedClasses(ClassLoader loader) {
        for (Selector s : selectors) {
            if (s.type.isExact()) {
                try {
                    Class.forName(s.type.glob(), false, loader);
                } catch (ClassNotFoundException | LinkageError e) {
                    // Not this loader's, or not loadable yet: it is woven when the application loads it.
                }
            }
        }
    }

    /** What a class's name alone says: weave it, skip it, or look for annotated methods. */
    private enum ByName { WEAVE, SKIP, IF_ANNOTATED }

    private ByName byName(String name) {
        if (name.equals(API_CLASS)) {
            return config.annotations() ? ByName.WEAVE : ByName.SKIP;
        }
        if (TcpAdvices.weaves(name) || handoffs.weaves(name)) {
            return ByName.WEAVE;
        }
        if (name.equals(VirtualThreadAdvices.TYPE)) {
            return VirtualThreadAdvices.enabled() ? ByName.WEAVE : ByName.SKIP;
        }
        if (!isApplication(name)) {
            return ByName.SKIP;
        }
        for (Selector s : selectors) {
            if (s.type.matches(name)) {
                return ByName.WEAVE;
            }
        }
        return config.annotations() ? ByName.IF_ANNOTATED : ByName.SKIP;
    }

    /** Whether a class is dprof's own or ByteBuddy's: never woven, and never suggested as a region ({@code dprof suggest}). */
    public static boolean isOwn(String className) {
        for (String own : OWN_PACKAGES) {
            if (className.startsWith(own)) {
                return true;
            }
        }
        return className.startsWith("net.bytebuddy.");
    }

    /** Whether a class may be the application's: not the agent's own, not ByteBuddy's, not excluded by the YAML. */
    private boolean isApplication(String name) {
        if (isOwn(name) || name.startsWith("java.lang.invoke.")) {
            return false;
        }
        for (ClassPattern exclude : excludes) {
            if (exclude.matches(name)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether ByteBuddy should weave the type. Classes of the boot and platform loaders (the JDK's)
     * are never looked into for {@code @Region}: at installation every class loaded so far, most of
     * them the JDK's, is matched for retransformation, and reading each one's method annotations
     * cost start-up time and left ByteBuddy's code to be compiled while the application ran.
     */
    private boolean isCandidate(TypeDescription type, ClassLoader loader) {
        if (type.isAnnotation()) {
            return false;
        }
        return switch (byName(type.getName())) {
            case WEAVE -> true;
            case SKIP -> false;
            case IF_ANNOTATED -> !isJdkLoader(loader) && !type.getDeclaredMethods()
                    .filter(ElementMatchers.isAnnotatedWith(ElementMatchers.named(REGION_ANNOTATION))).isEmpty();
        };
    }

    /**
     * Hands a loading class to ByteBuddy only if it may be woven: its name selects it, or its bytes
     * name the {@code @Region} annotation. Every other class (nearly all of them) is passed over
     * without being parsed.
     *
     * <p>Implementation notes: ByteBuddy matches a type on its parsed description, so without this
     * filter every class the application loads, also while it runs and is measured, was parsed into
     * a type pool and its methods' annotations looked at; that work, and compiling ByteBuddy's
     * parser for it, showed as the agent's cost inside a K-Means run. The filter relies on an
     * annotation's type appearing in the class file's constant pool as its descriptor
     * {@code Ldev/dprof/api/Region;}. Retransformations of loaded classes always go to ByteBuddy.
     */
    private final class NameFilter extends ResettableClassFileTransformer.WithDelegation {
        NameFilter(ResettableClassFileTransformer delegate) {
            super(delegate);
        }

        @Override
        public byte[] transform(ClassLoader loader, String internalName, Class<?> redefined, ProtectionDomain domain,
                                byte[] bytes) throws IllegalClassFormatException {
            return mayWeave(loader, internalName, redefined, bytes)
                    ? classFileTransformer.transform(loader, internalName, redefined, domain, bytes) : null;
        }

        @Override
        public byte[] transform(Module module, ClassLoader loader, String internalName, Class<?> redefined,
                                ProtectionDomain domain, byte[] bytes) throws IllegalClassFormatException {
            return mayWeave(loader, internalName, redefined, bytes)
                    ? classFileTransformer.transform(module, loader, internalName, redefined, domain, bytes) : null;
        }
    }

    /** Whether a loading class may be woven, by its name and, for {@code @Region}, its bytes (see {@link NameFilter}). */
    private boolean mayWeave(ClassLoader loader, String internalName, Class<?> redefined, byte[] bytes) {
        if (redefined != null) {
            return true;
        }
        if (internalName == null || bytes == null) {
            return false;
        }
        return switch (byName(internalName.replace('/', '.'))) {
            case WEAVE -> true;
            case SKIP -> false;
            case IF_ANNOTATED -> !isJdkLoader(loader) && contains(bytes, REGION_DESCRIPTOR);
        };
    }

    /**
     * Runs the class-file filter once over every branch it has, so that each class it needs is loaded
     * and initialized on this thread before the transformer is installed. The drainer's thread loads
     * Chronicle's classes meanwhile, and each of its class loads runs the filter: a class of the filter
     * (the enum switch's map, say) first loaded inside the filter on one thread and initialized on the
     * other deadlocked the two (each held a class-loading lock the other's class initialization waited for).
     */
    private void primeFilter(Instrumentation inst) {
        List<String> names = new ArrayList<>(List.of(API_CLASS, TcpAdvices.SOCKET_IMPL, TcpAdvices.CHANNEL_IMPL,
                TcpAdvices.NETTY_DESCRIPTOR,
                VirtualThreadAdvices.TYPE, HandoffWeaving.THREAD, "dev.dprof.agent.Own", "net.bytebuddy.Own",
                "java.lang.Object"));
        names.addAll(HandoffWeaving.QUEUES);
        names.addAll(HandoffWeaving.ITERATORS);
        for (ClassPattern exclude : excludes) {
            exclude.matches("java.lang.Object");
        }
        byte[] noRegion = new byte[64];
        ClassLoader app = ClassLoader.getSystemClassLoader();
        for (String name : names) {
            String internal = name.replace('.', '/');
            mayWeave(null, internal, null, noRegion);
            mayWeave(app, internal, null, noRegion);
            mayWeave(app, internal, Object.class, noRegion);
        }
        warmUpFilter(inst, 0);
    }

    /**
     * Runs the class-file filter over the names of the loaded classes, {@value #FILTER_WARM_CALLS}
     * times, for the agent's JIT warm-up before {@code main}. Every class the JVM loads passes
     * through the filter; left to the application's class loading, it became hot enough for C2 just
     * as K-Means began its iterations, and compiling it kept C2 from the application's loop for
     * about 70 ms (BENCHMARKS.md, "Agent overhead").
     */
    public void warmUpFilter(Instrumentation inst) {
        warmUpFilter(inst, FILTER_WARM_CALLS);
    }

    /** {@link #warmUpFilter} with {@code calls} calls, but at least two per loaded class (one per loader kind). */
    private void warmUpFilter(Instrumentation inst, int calls) {
        List<Class<?>> named = new ArrayList<>();
        for (Class<?> c : inst.getAllLoadedClasses()) {
            if (!c.isArray() && !c.isHidden()) {
                named.add(c);
            }
        }
        if (named.isEmpty()) {
            return;
        }
        byte[] noRegion = new byte[512];
        ClassLoader app = ClassLoader.getSystemClassLoader();
        for (int call = 0, end = Math.max(calls, 2 * named.size()); call < end; call++) {
            Class<?> c = named.get(call % named.size());
            // Every other pass as the application's loader's, so the @Region scan is taken too.
            ClassLoader loader = call / named.size() % 2 == 0 ? c.getClassLoader() : app;
            mayWeave(loader, c.getName().replace('.', '/'), null, noRegion);
        }
    }

    /**
     * Whether {@code c} came from the jar this class came from: the agent's libraries that are not
     * relocated (JNA, which Chronicle loads at its start) carry no {@code @Region}, and describing
     * their methods for ByteBuddy's annotation matcher loaded further classes of theirs.
     */
    private static boolean isAgentJars(Class<?> c) {
        try {
            java.security.CodeSource own = Weaver.class.getProtectionDomain().getCodeSource();
            java.security.CodeSource theirs = c.getProtectionDomain().getCodeSource();
            return own != null && theirs != null && own.getLocation() != null && theirs.getLocation() != null
                    && own.getLocation().toExternalForm().equals(theirs.getLocation().toExternalForm());
        } catch (SecurityException e) {
            return false;
        }
    }

    /** The boot and platform loaders, which load the JDK's classes: none of them carries {@code @Region}. */
    private static boolean isJdkLoader(ClassLoader loader) {
        return loader == null || loader == ClassLoader.getPlatformClassLoader();
    }

    private static final byte[] REGION_DESCRIPTOR = ("L" + REGION_ANNOTATION.replace('.', '/') + ";")
            .getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    /** Whether {@code needle} occurs in {@code haystack}. */
    static boolean contains(byte[] haystack, byte[] needle) {
        byte first = needle[0];
        outer:
        for (int i = 0, last = haystack.length - needle.length; i <= last; i++) {
            if (haystack[i] != first) {
                continue;
            }
            for (int j = 1; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    private DynamicType.Builder<?> transform(DynamicType.Builder<?> builder, TypeDescription type,
                                             ClassLoader loader, JavaModule module, ProtectionDomain domain) {
        if (type.getName().equals(API_CLASS)) {
            return weaveApi(builder, type);
        }
        if (type.getName().equals(TcpAdvices.FILE_CHANNEL_IMPL)) {
            // transferTo only: the YAML's regions may name its other methods (FileChannelImpl#force)
            builder = builder.visit(Advice.to(TcpAdvices.Transfer.class).withExceptionHandler(adviceFailed)
                    .on(ElementMatchers.named("transferTo").and(ElementMatchers.takesArguments(3))));
            registerTcp();
        } else if (TcpAdvices.weaves(type.getName())) {
            return weaveTcp(builder, type);
        }
        if (handoffs.weaves(type.getName())) {
            return handoffs.weave(builder, type);
        }
        if (type.getName().equals(VirtualThreadAdvices.TYPE)) {
            return VirtualThreadAdvices.weave(builder, adviceFailed);
        }
        for (MethodDescription.InDefinedShape method : type.getDeclaredMethods()) {
            if (method.isAbstract() || method.isNative() || method.isTypeInitializer()) {
                continue;
            }
            int selected = matches.select(type, method);
            if (selected >= 0) {
                builder = weave(builder, type, method, selectors.get(selected));
            } else if (config.annotations()) {
                AnnotationDescription region = method.getDeclaredAnnotations().stream()
                        .filter(a -> a.getAnnotationType().getName().equals(REGION_ANNOTATION))
                        .findFirst().orElse(null);
                if (region != null) {
                    builder = weaveAnnotated(builder, type, method, region);
                }
            }
        }
        matches.classSeen(type);
        return builder;
    }

    private DynamicType.Builder<?> weaveAnnotated(DynamicType.Builder<?> builder, TypeDescription type,
                                                  MethodDescription method, AnnotationDescription annotation) {
        String given = annotation.getValue("value").resolve(String.class);
        String methodName = method.isConstructor() ? "<init>" : method.getName();
        String name = given.isEmpty() ? type.getSimpleName() + "#" + methodName : given;
        int id = table.register(name, "plain", "annotation", type.getName() + "#" + methodName + method.getDescriptor());
        if (method.isConstructor()) {
            return builder.visit(new ConstructorRegion(method, id, false));
        }
        return builder.visit(advise(mapping(id), Advices.Plain.class).on(ElementMatchers.is(method)));
    }

    private DynamicType.Builder<?> weave(DynamicType.Builder<?> builder, TypeDescription type,
                                         MethodDescription method, Selector selector) {
        RegionSpec spec = selector.spec;
        int id = selector.regionId;
        String where = type.getName() + "#" + method.getInternalName() + method.getDescriptor();
        if (method.isConstructor()) {
            if (spec.kind() != RegionKind.PLAIN && spec.kind() != RegionKind.PROGRESS || spec.instance().isPresent()) {
                String why = "a constructor can only be a plain or progress region without instance";
                warn.accept("region '" + spec.name() + "' (line " + spec.line() + "): " + where + " not woven: " + why);
                matches.refused(selector.index, type, method, why);
                return builder;
            }
            matches.woven(selector.index, type, method);
            return builder.visit(new ConstructorRegion(method, id, spec.kind() == RegionKind.PROGRESS));
        }
        Binding binding = new Binding(mapping(id), method);
        Class<?> advice;
        switch (spec.kind()) {
            case PLAIN -> {
                if (spec.instance().isPresent() && spec.instance().get() instanceof ValueSource.Arg) {
                    binding.bind(Advices.Instance.class, spec.instance().get());
                    advice = Advices.PlainInstance.class;
                } else {
                    advice = Advices.Plain.class;
                }
            }
            case SEND -> {
                binding.bind(Advices.Channel.class, spec.channel().orElseThrow());
                binding.bind(Advices.Key.class, spec.key().orElseThrow());
                advice = Advices.Send.class;
            }
            case RECEIVE -> {
                binding.bind(Advices.Channel.class, spec.channel().orElseThrow());
                if (spec.key().orElseThrow() instanceof ValueSource.Return) {
                    if (method.getReturnType().represents(void.class)) {
                        binding.fail("key {return: true} on a method returning void");
                    }
                    advice = Advices.ReceiveReturn.class;
                } else {
                    binding.bind(Advices.Key.class, spec.key().get());
                    advice = Advices.Receive.class;
                }
            }
            case BARRIER -> {
                binding.bind(Advices.Key.class, spec.key().orElseThrow());
                binding.bind(Advices.Participants.class, spec.participants().orElseThrow());
                advice = Advices.Barrier.class;
            }
            case COLLECTIVE -> {
                RegionSpec.Collective c = spec.collective().orElseThrow();
                binding.bind(Advices.Key.class, spec.key().orElseThrow());
                binding.bind(Advices.Participants.class, spec.participants().orElseThrow());
                binding.bind(Advices.Flavour.class, new ValueSource.Const(Integer.toString(c.flavour().code)));
                binding.bind(Advices.Rank.class, c.rank().orElse(new ValueSource.Const("0")));
                binding.bind(Advices.Root.class, c.root().orElse(new ValueSource.Const("0")));
                advice = Advices.Collective.class;
            }
            case PROGRESS -> advice = Advices.Progress.class;
            case HANDOFF -> {
                if (!config.handoffs().contains(HandoffRegions.Kind.CUSTOM)) {
                    matches.refused(selector.index, type, method, "custom handoffs are off ('handoffs:')");
                    return builder;
                }
                binding.bind(Advices.Channel.class, spec.channel().orElseThrow());
                if (spec.side().orElseThrow() == RegionSpec.HandoffSide.PUT) {
                    binding.bind(Advices.Key.class, spec.key().orElseThrow());
                    advice = Advices.HandoffPut.class;
                } else if (spec.key().orElseThrow() instanceof ValueSource.Return) {
                    if (method.getReturnType().represents(void.class)) {
                        binding.fail("key {return: true} on a method returning void");
                    }
                    advice = Advices.HandoffTakeReturn.class;
                } else {
                    binding.bind(Advices.Key.class, spec.key().get());
                    advice = Advices.HandoffTake.class;
                }
            }
            default -> throw new IllegalStateException(spec.kind().toString());
        }
        if (binding.problem != null) {
            warn.accept("region '" + spec.name() + "' (line " + spec.line() + "): " + where + " not woven: "
                    + binding.problem);
            matches.refused(selector.index, type, method, binding.problem);
            return builder;
        }
        matches.woven(selector.index, type, method);
        return builder.visit(advise(binding.mapping, advice).on(ElementMatchers.is(method)));
    }

    private DynamicType.Builder<?> weaveApi(DynamicType.Builder<?> builder, TypeDescription type) {
        int send = table.register(OwnRegions.API_PREFIX + "send", "send", "api", API_CLASS + "#send");
        int receive = table.register(OwnRegions.API_PREFIX + "receive", "receive", "api", API_CLASS + "#receive");
        int barrier = table.register(OwnRegions.API_PREFIX + "barrier", "barrier", "api", API_CLASS + "#barrierEnter");
        int collective = table.register(OwnRegions.API_PREFIX + "collective", "collective", "api", API_CLASS + "#collectiveEnter");
        return builder
                .visit(advise(mapping(send), ApiAdvices.Send.class).on(ElementMatchers.named("send")))
                .visit(advise(mapping(receive), ApiAdvices.Receive.class).on(ElementMatchers.named("receive")))
                .visit(advise(mapping(barrier), ApiAdvices.BarrierEnter.class).on(ElementMatchers.named("barrierEnter")))
                .visit(advise(mapping(barrier), ApiAdvices.BarrierExit.class).on(ElementMatchers.named("barrierExit")))
                .visit(advise(mapping(collective), ApiAdvices.CollectiveEnter.class)
                        .on(ElementMatchers.named("collectiveEnter")))
                .visit(advise(mapping(collective), ApiAdvices.CollectiveExit.class)
                        .on(ElementMatchers.named("collectiveExit")))
                .visit(advise(mapping(0), ApiAdvices.Progress.class).on(ElementMatchers.named("progress")));
    }

    /** The advice, with a failing probe counted as a lost event rather than silently dropped. */
    private Advice advise(Advice.WithCustomMapping mapping, Class<?> advice) {
        return mapping.to(advice).withExceptionHandler(adviceFailed);
    }

    /** The JDK's and Netty's TCP implementations: sends and receives keyed by byte offsets, no configuration needed. */
    private DynamicType.Builder<?> weaveTcp(DynamicType.Builder<?> builder, TypeDescription type) {
        registerTcp();
        String netty = TcpAdvices.nettyClass(type.getName());
        if (netty != null) {
            return TcpAdvices.weaveNetty(builder, netty, adviceFailed);
        }
        if (type.getName().equals(TcpAdvices.SOCKET_IMPL)) {
            return builder
                    .visit(Advice.to(TcpAdvices.SocketWrite.class).withExceptionHandler(adviceFailed)
                            .on(ElementMatchers.named("implWrite")))
                    .visit(Advice.to(TcpAdvices.SocketRead.class).withExceptionHandler(adviceFailed)
                            .on(ElementMatchers.named("implRead")));
        }
        return builder
                .visit(Advice.to(TcpAdvices.ChannelWrite.class).withExceptionHandler(adviceFailed)
                        .on(ElementMatchers.named("write").and(ElementMatchers.isPublic())))
                .visit(Advice.to(TcpAdvices.ChannelRead.class).withExceptionHandler(adviceFailed)
                        .on(ElementMatchers.named("read").and(ElementMatchers.isPublic())));
    }

    private void registerTcp() {
        TcpProbes.regions(table.register(TcpRegions.WRITE, "send", "tcp", TcpAdvices.LOCATION),
                table.register(TcpRegions.READ, "receive", "tcp", TcpAdvices.LOCATION));
    }

    private Advice.WithCustomMapping mapping(int regionId) {
        return Advice.withCustomMapping().bind(Advices.RegionId.class, regionId);
    }

    /** The advice parameters of one woven method, bound one by one; the first problem stops it. */
    private final class Binding {
        private Advice.WithCustomMapping mapping;
        private final MethodDescription method;
        private String problem;

        Binding(Advice.WithCustomMapping mapping, MethodDescription method) {
            this.mapping = mapping;
            this.method = method;
        }

        void fail(String why) {
            if (problem == null) {
                problem = why;
            }
        }

        /** Binds {@code annotation} to a constant or to a read in the method. */
        void bind(Class<? extends java.lang.annotation.Annotation> annotation, ValueSource source) {
            if (source instanceof ValueSource.Const c) {
                mapping = mapping.bind(annotation, constantKey(c.text()));
            } else if (source instanceof ValueSource.Property p) {
                String value = System.getProperty(p.name());
                if (value == null) {
                    fail("system property " + p.name() + " is not set");
                } else {
                    mapping = mapping.bind(annotation, constantKey(value));
                }
            } else {
                String why = ValueMapping.check(source, method);
                if (why == null) {
                    mapping = mapping.bind(annotation, new ValueMapping(source, keyOf));
                } else {
                    fail(why);
                }
            }
        }
    }

    /** The key of a constant: its value when it is an integer, else {@link Probes#keyOf}. */
    static long constantKey(String text) {
        try {
            return Long.parseLong(text.trim());
        } catch (NumberFormatException e) {
            return Probes.keyOf(text);
        }
    }


    /** Reports weaving failures as one line each, without stack traces, up to a limit. */
    private final class FailureListener extends AgentBuilder.Listener.Adapter {
        @Override
        public void onError(String typeName, ClassLoader classLoader, JavaModule module, boolean loaded, Throwable throwable) {
            failed(typeName, throwable);
        }
    }

    /** One line for each of the first {@value #MAX_REPORTED_FAILURES} classes that could not be woven. */
    private void failed(String typeName, Throwable throwable) {
        int n = failures.incrementAndGet();
        if (n <= MAX_REPORTED_FAILURES) {
            warn.accept("could not weave " + typeName + " (" + throwable + "); it runs unprofiled");
            if (DprofSettings.debug()) {
                throwable.printStackTrace();
            }
        }
    }

}
