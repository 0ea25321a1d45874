package dev.dprof.cli.suggest;

import java.lang.reflect.Modifier;
import java.util.Objects;

/**
 * One frame of a recorded stack, as the YAML names a method: the binary class name with dots
 * ({@code com.example.Worker$Job}), the method name ({@code <init>} for a constructor) and the JVM
 * descriptor ({@code (I)V}) — exactly the {@code class}, {@code method} and {@code descriptor} of a region
 * (docs/CONFIG.md). Equality is the method's identity; {@code modifiers} (the class file's access flags),
 * {@code hidden} and {@code jdk} describe it.
 *
 * @param className binary class name with dots
 * @param methodName method name, {@code <init>} for constructors
 * @param descriptor JVM method descriptor
 * @param modifiers the method's access flags as in the class file (JVMS §4.6)
 * @param hidden whether the JVM marks the frame hidden (a hidden class such as a lambda's proxy, or a
 *               {@code @Hidden} method of the JDK)
 * @param jdk whether the class was defined by the boot or the platform class loader
 */
public record Frame(String className, String methodName, String descriptor, int modifiers, boolean hidden,
        boolean jdk) {
    /** {@code ACC_BRIDGE} (JVMS §4.6): a generic method's bridge, which only calls the real one. */
    static final int BRIDGE = 0x0040;
    /** {@code ACC_SYNTHETIC} (JVMS §4.6): made by the compiler, not written in the source. */
    static final int SYNTHETIC = 0x1000;
    /** The prefix javac gives the method that holds a lambda's body ({@code lambda$run$0}). */
    static final String LAMBDA_BODY = "lambda$";

    public Frame {
        Objects.requireNonNull(className, "className");
        Objects.requireNonNull(methodName, "methodName");
        Objects.requireNonNull(descriptor, "descriptor");
    }

    /** An application frame of the app class loader, for tests and hand-made stacks. */
    public static Frame of(String className, String methodName, String descriptor) {
        return new Frame(className, methodName, descriptor, Modifier.PUBLIC, false, false);
    }

    /** A JDK frame (boot class loader), for tests and hand-made stacks. */
    public static Frame jdk(String className, String methodName, String descriptor) {
        return new Frame(className, methodName, descriptor, Modifier.PUBLIC, false, true);
    }

    /** Whether the frame runs the body of a lambda: javac's synthetic {@code lambda$outer$n} method. */
    public boolean isLambdaBody() {
        return methodName.startsWith(LAMBDA_BODY) && (modifiers & SYNTHETIC) != 0;
    }

    /**
     * Why a region on this method would never be woven or would time nothing of its own, or {@code null} if it
     * can be a region: native methods have no bytecode; static initialisers run once and the YAML refuses
     * them; hidden classes (lambda proxies, the JDK's generated classes) cannot be transformed; a bridge only
     * calls the real method, which is on the same stack; other synthetic methods (accessors) are trivial.
     * Lambda bodies are kept: they are ordinary methods of the class that wrote the lambda.
     */
    public String unweavable() {
        if (hidden || className.indexOf('/') >= 0 || className.contains("$$Lambda")) {
            return "hidden class";
        }
        if ((modifiers & Modifier.NATIVE) != 0) {
            return "native";
        }
        if (methodName.equals("<clinit>")) {
            return "static initialiser";
        }
        if ((modifiers & BRIDGE) != 0) {
            return "bridge";
        }
        if ((modifiers & SYNTHETIC) != 0 && !isLambdaBody()) {
            return "synthetic";
        }
        return null;
    }

    /** {@code Class#method} with the class's simple binary name ({@code Outer$Inner}). */
    String shortName() {
        return className.substring(className.lastIndexOf('.') + 1) + "#" + methodName;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Frame f && className.equals(f.className) && methodName.equals(f.methodName)
                && descriptor.equals(f.descriptor);
    }

    @Override
    public int hashCode() {
        return (className.hashCode() * 31 + methodName.hashCode()) * 31 + descriptor.hashCode();
    }

    @Override
    public String toString() {
        return className + "#" + methodName + descriptor;
    }
}
