package dev.dprof.agent.instrument;

import dev.dprof.agent.bootstrap.MonitorHandoffs;
import dev.dprof.format.HandoffRegions;
import java.lang.instrument.ClassFileTransformer;
import java.nio.charset.StandardCharsets;
import java.security.ProtectionDomain;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.function.BiConsumer;
import java.util.function.Predicate;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.ClassWriter;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;

/**
 * Rewrites the application's calls of {@code Object.wait}, {@code notify} and {@code notifyAll}
 * into calls of {@link MonitorHandoffs}, which make the same call and record the monitor handoff
 * ({@code HandoffRegions.Kind.MONITOR}). The JDK's own calls are left alone.
 *
 * <p>Why call sites: on JDK 17 the three methods are native and {@code final} in {@code Object}, so
 * there is no body to weave, and retransforming {@code Object} could not add one. Because they are
 * final, a call named {@code wait}, {@code notify} or {@code notifyAll} with one of their
 * descriptors always reaches {@code Object}'s method, whatever class the call names (javac names the
 * receiver's static type, or {@code Object} for an unqualified call), so the rewrite needs no type
 * resolution.
 *
 * <p>Each call site is a region of its own, named after the call and the site, e.g.
 * {@code monitor: notifyAll in CommitProcessor.wakeup:412}: the critical path names the handoffs
 * it crosses by their notification's site.
 *
 * <h2>Implementation notes</h2>
 * <ul>
 * <li>Every class the application loads passes here; one that has no constant-pool string
 * {@code wait}, {@code notify} or {@code notifyAll} (nearly all) is passed over after a walk of its
 * constant pool, without being parsed.</li>
 * <li>The rewrite replaces one instruction by two (the site's id, then a static call with the same
 * stack effect plus that id): no branch, no frame changes, the method's max stack grows by one.
 * A method that would outgrow the class-file limits leaves its class as it was.</li>
 * <li>A class is rewritten only if its loader sees the agent's bootstrap classes (a loader that
 * does not delegate to the boot loader would fail on the rewritten call).</li>
 * <li>Registered as a transformer that does not retransform: classes loaded before the agent are
 * the JDK's, and a retransformation reapplies this rewrite unchanged.</li>
 * </ul>
 */
final class MonitorCallSites implements ClassFileTransformer {
    private static final String TARGET = MonitorHandoffs.class.getName().replace('.', '/');
    private static final byte[][] NAMES = {ascii("wait"), ascii("notify"), ascii("notifyAll")};

    /** A rewritten call: the method called, its descriptor, and the {@link MonitorHandoffs} method that replaces it. */
    private enum Call {
        WAIT("wait", "()V", "waitOn", "(Ljava/lang/Object;I)V"),
        WAIT_MILLIS("wait", "(J)V", "waitOn", "(Ljava/lang/Object;JI)V"),
        WAIT_NANOS("wait", "(JI)V", "waitOn", "(Ljava/lang/Object;JII)V"),
        NOTIFY("notify", "()V", "notifyOne", "(Ljava/lang/Object;I)V"),
        NOTIFY_ALL("notifyAll", "()V", "notifyEvery", "(Ljava/lang/Object;I)V");

        final String name;
        final String descriptor;
        final String target;
        final String targetDescriptor;

        Call(String name, String descriptor, String target, String targetDescriptor) {
            this.name = name;
            this.descriptor = descriptor;
            this.target = target;
            this.targetDescriptor = targetDescriptor;
        }

        static Call of(int opcode, String name, String descriptor) {
            if (opcode != Opcodes.INVOKEVIRTUAL && opcode != Opcodes.INVOKEINTERFACE) {
                return null;
            }
            for (Call c : values()) {
                if (c.name.equals(name) && c.descriptor.equals(descriptor)) {
                    return c;
                }
            }
            return null;
        }
    }

    private final Predicate<String> application;
    private final RegionTable table;
    private final BiConsumer<String, Throwable> failed;
    private final Map<ClassLoader, Boolean> seesAgent = new WeakHashMap<>();

    /**
     * {@code application}: whether a class (by binary name) is the application's to weave at all;
     * {@code failed}: told of a class left as it was because its rewrite failed.
     */
    MonitorCallSites(Predicate<String> application, RegionTable table, BiConsumer<String, Throwable> failed) {
        this.application = application;
        this.table = table;
        this.failed = failed;
    }

    @Override
    public byte[] transform(ClassLoader loader, String internalName, Class<?> redefined, ProtectionDomain domain,
                            byte[] bytes) {
        if (redefined != null || internalName == null || bytes == null || loader == null
                || loader == ClassLoader.getPlatformClassLoader() || !namesMonitorMethod(bytes)) {
            return null;
        }
        String name = internalName.replace('/', '.');
        try {
            return application.test(name) && seesAgent(loader) ? rewrite(bytes) : null;
        } catch (Throwable t) {
            failed.accept(name, t);
            return null;
        }
    }

    /**
     * Whether the class file's constant pool holds the UTF-8 entry {@code wait}, {@code notify} or
     * {@code notifyAll}, which every call of them names. Walks the pool's entries (JVMS §4.4), not
     * the bytes: a few hundred steps for a typical class. A class file too short or with an
     * unknown tag answers true, and the parser that reads it next reports it.
     */
    static boolean namesMonitorMethod(byte[] b) {
        try {
            if (b.length < 10) {
                return true;
            }
            int count = u2(b, 8);
            int at = 10;
            for (int i = 1; i < count; i++) {
                int tag = b[at];
                switch (tag) {
                    case 1 -> {
                        int length = u2(b, at + 1);
                        if (length == 4 || length == 6 || length == 9) {
                            for (byte[] name : NAMES) {
                                if (name.length == length && equalAt(b, at + 3, name)) {
                                    return true;
                                }
                            }
                        }
                        at += 3 + length;
                    }
                    case 7, 8, 16, 19, 20 -> at += 3;
                    case 15 -> at += 4;
                    case 3, 4, 9, 10, 11, 12, 17, 18 -> at += 5;
                    case 5, 6 -> {
                        at += 9;
                        i++;
                    }
                    default -> {
                        return true;
                    }
                }
            }
            return false;
        } catch (ArrayIndexOutOfBoundsException e) {
            return true;
        }
    }

    private static int u2(byte[] b, int at) {
        return (b[at] & 0xFF) << 8 | (b[at + 1] & 0xFF);
    }

    private static boolean equalAt(byte[] b, int at, byte[] name) {
        for (int j = 0; j < name.length; j++) {
            if (b[at + j] != name[j]) {
                return false;
            }
        }
        return true;
    }

    private boolean seesAgent(ClassLoader loader) {
        synchronized (seesAgent) {
            Boolean known = seesAgent.get(loader);
            if (known != null) {
                return known;
            }
        }
        boolean sees;
        try {
            sees = Class.forName(MonitorHandoffs.class.getName(), false, loader) == MonitorHandoffs.class;
        } catch (ClassNotFoundException | LinkageError e) {
            sees = false;
        }
        synchronized (seesAgent) {
            seesAgent.put(loader, sees);
        }
        return sees;
    }

    /** The class with its monitor calls rewritten, or {@code null} if it has none. */
    byte[] rewrite(byte[] bytes) {
        ClassReader reader = new ClassReader(bytes);
        ClassWriter writer = new ClassWriter(reader, 0);
        Rewriter rewriter = new Rewriter(writer);
        reader.accept(rewriter, 0);
        return rewriter.changed ? writer.toByteArray() : null;
    }

    private final class Rewriter extends ClassVisitor {
        private String simpleName;
        boolean changed;

        Rewriter(ClassVisitor next) {
            super(Opcodes.ASM9, next);
        }

        @Override
        public void visit(int version, int access, String name, String signature, String superName,
                          String[] interfaces) {
            simpleName = simpleName(name);
            super.visit(version, access, name, signature, superName, interfaces);
        }

        @Override
        public MethodVisitor visitMethod(int access, String method, String descriptor, String signature,
                                         String[] exceptions) {
            MethodVisitor next = super.visitMethod(access, method, descriptor, signature, exceptions);
            return new MethodVisitor(Opcodes.ASM9, next) {
                private int line = -1;
                private boolean rewrote;

                @Override
                public void visitLineNumber(int number, net.bytebuddy.jar.asm.Label start) {
                    line = number;
                    super.visitLineNumber(number, start);
                }

                @Override
                public void visitMethodInsn(int opcode, String owner, String name, String desc, boolean itf) {
                    Call call = Call.of(opcode, name, desc);
                    if (call == null) {
                        super.visitMethodInsn(opcode, owner, name, desc, itf);
                        return;
                    }
                    String where = simpleName + "." + method + (line >= 0 ? ":" + line : "");
                    String site = HandoffRegions.monitorSiteName(call.name, where);
                    super.visitLdcInsn(table.register(site, HandoffRegions.REGION_KIND, "auto", where));
                    super.visitMethodInsn(Opcodes.INVOKESTATIC, TARGET, call.target, call.targetDescriptor, false);
                    rewrote = true;
                    changed = true;
                }

                @Override
                public void visitMaxs(int maxStack, int maxLocals) {
                    super.visitMaxs(rewrote ? maxStack + 1 : maxStack, maxLocals);
                }
            };
        }
    }

    private static String simpleName(String internalName) {
        return internalName.substring(internalName.lastIndexOf('/') + 1);
    }

    private static byte[] ascii(String name) {
        return name.getBytes(StandardCharsets.US_ASCII);
    }
}
