package dev.dprof.agent.instrument;

import net.bytebuddy.asm.AsmVisitorWrapper;
import net.bytebuddy.description.field.FieldDescription;
import net.bytebuddy.description.field.FieldList;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.method.MethodList;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.implementation.Implementation;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.ClassWriter;
import net.bytebuddy.jar.asm.Label;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;
import net.bytebuddy.pool.TypePool;

/**
 * A region around a constructor, with an exit also when the constructor throws — which
 * ByteBuddy's {@code Advice} cannot do for constructors. The enter probe runs right after the
 * {@code super(…)}/{@code this(…)} call, where {@code this} is initialised; a catch-all handler
 * from there to the end records the exceptional exit and rethrows. The handler is added after
 * the constructor's own handlers, so it never pre-empts them.
 *
 * <p>The super call is found by pairing {@code NEW} with {@code <init>}: the first
 * {@code invokespecial <init>} with no {@code NEW} pending is the one on {@code this}. That holds
 * for the code javac and other compilers emit. Frames are recomputed for such classes.
 */
final class ConstructorRegion implements AsmVisitorWrapper {
    private static final String PROBES = "dev/dprof/agent/bootstrap/Probes";

    private final MethodDescription constructor;
    private final int regionId;
    private final boolean progress;

    ConstructorRegion(MethodDescription constructor, int regionId, boolean progress) {
        this.constructor = constructor;
        this.regionId = regionId;
        this.progress = progress;
    }

    @Override
    public int mergeWriter(int flags) {
        return flags | ClassWriter.COMPUTE_FRAMES;
    }

    @Override
    public int mergeReader(int flags) {
        return flags;
    }

    @Override
    public ClassVisitor wrap(TypeDescription instrumentedType, ClassVisitor classVisitor,
                             Implementation.Context implementationContext, TypePool typePool,
                             FieldList<FieldDescription.InDefinedShape> fields,
                             MethodList<?> methods, int writerFlags, int readerFlags) {
        String descriptor = constructor.getDescriptor();
        return new ClassVisitor(Opcodes.ASM9, classVisitor) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String desc, String signature, String[] exceptions) {
                MethodVisitor mv = super.visitMethod(access, name, desc, signature, exceptions);
                return "<init>".equals(name) && descriptor.equals(desc) ? new Body(mv) : mv;
            }
        };
    }

    private final class Body extends MethodVisitor {
        private final Label start = new Label();
        private final Label end = new Label();
        private final Label handler = new Label();
        private int pendingNew;
        private boolean entered;

        Body(MethodVisitor mv) {
            super(Opcodes.ASM9, mv);
        }

        @Override
        public void visitTypeInsn(int opcode, String type) {
            super.visitTypeInsn(opcode, type);
            if (opcode == Opcodes.NEW) {
                pendingNew++;
            }
        }

        @Override
        public void visitMethodInsn(int opcode, String owner, String name, String desc, boolean isInterface) {
            super.visitMethodInsn(opcode, owner, name, desc, isInterface);
            if (opcode != Opcodes.INVOKESPECIAL || !"<init>".equals(name) || entered) {
                return;
            }
            if (pendingNew > 0) {
                pendingNew--;
                return;
            }
            entered = true;
            super.visitTryCatchBlock(start, end, handler, null);
            if (!progress) {
                super.visitLdcInsn(regionId);
                super.visitMethodInsn(Opcodes.INVOKESTATIC, PROBES, "enter", "(I)V", false);
            }
            super.visitLabel(start);
        }

        @Override
        public void visitInsn(int opcode) {
            if (opcode == Opcodes.RETURN && entered) {
                super.visitLdcInsn(regionId);
                if (progress) {
                    super.visitMethodInsn(Opcodes.INVOKESTATIC, PROBES, "progress", "(I)V", false);
                } else {
                    super.visitInsn(Opcodes.ICONST_0);
                    super.visitMethodInsn(Opcodes.INVOKESTATIC, PROBES, "exit", "(IZ)V", false);
                }
            }
            super.visitInsn(opcode);
        }

        @Override
        public void visitMaxs(int maxStack, int maxLocals) {
            if (entered) {
                super.visitLabel(end);
                super.visitLabel(handler);
                if (!progress) {
                    super.visitLdcInsn(regionId);
                    super.visitInsn(Opcodes.ICONST_1);
                    super.visitMethodInsn(Opcodes.INVOKESTATIC, PROBES, "exit", "(IZ)V", false);
                }
                super.visitInsn(Opcodes.ATHROW);
            }
            super.visitMaxs(maxStack, maxLocals);
        }
    }
}
