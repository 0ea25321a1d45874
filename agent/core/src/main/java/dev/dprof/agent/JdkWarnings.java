package dev.dprof.agent;

import java.lang.reflect.Field;
import java.lang.reflect.Method;

/**
 * Keeps the JDK from printing, on the application's stderr, the warnings that the agent's own code
 * would cause on JDK 22 and later, so that the host sees nothing but the agent's lines
 * (docs/DESIGN.md, "The agent jar"):
 * <ul>
 *   <li>JEP 472, "A restricted method in java.lang.System has been called", for the native clock's
 *   {@code System.load} from the bootstrap loader's unnamed module;</li>
 *   <li>JEP 498, "A terminally deprecated method in sun.misc.Unsafe has been called", which
 *   Chronicle causes as soon as it opens the queue.</li>
 * </ul>
 * Both are one-time warnings whose only lasting effect is a flag: after the first restricted call
 * from any unnamed module the JDK marks native access as enabled for all unnamed modules, and after
 * the first {@code sun.misc.Unsafe} memory access it marks that warning as given for the JVM. The
 * agent sets the two flags itself before its code makes those calls, which leaves the JVM in the
 * state the warnings would have left it in, without the lines. Under
 * {@code --illegal-native-access=deny} nothing is enabled: the native clock is refused and the agent
 * falls back to {@code System.nanoTime} with one line, as the user asked for.
 *
 * <p>Implementation notes: the flags are set through JDK internals ({@code Module.implAddEnableNativeAccessToAllUnnamed},
 * {@code sun.misc.Unsafe.memoryAccessWarned}, {@code jdk.internal.misc.VM.getSavedProperty}), by
 * reflection, opened to the agent's module only by {@link JdkOpener}; where they do not exist (JDK 17,
 * where neither warning exists either) nothing is done, and any failure is ignored: a warning line
 * is never worth stopping the agent. As with the warnings themselves, an application that makes such
 * calls after the agent gets no warning for them (README, "Quiet on the host").
 */
final class JdkWarnings {
    private JdkWarnings() {
    }

    static void silence() {
        enableNativeAccessUnlessDenied();
        markUnsafeWarningGiven();
    }

    private static void enableNativeAccessUnlessDenied() {
        try {
            Method saved = Class.forName("jdk.internal.misc.VM").getMethod("getSavedProperty", String.class);
            Object mode = saved.invoke(null, "jdk.module.illegal.native.access");
            if (mode != null && !"warn".equals(mode)) {
                return; // allow: nothing is printed anyway; deny: the user's choice stands
            }
            Method enable = Module.class.getDeclaredMethod("implAddEnableNativeAccessToAllUnnamed");
            enable.setAccessible(true);
            enable.invoke(null);
        } catch (ReflectiveOperationException | RuntimeException e) {
            // before JDK 22 there is no such warning
        }
    }

    private static void markUnsafeWarningGiven() {
        try {
            Field warned = Class.forName("sun.misc.Unsafe").getDeclaredField("memoryAccessWarned");
            warned.setAccessible(true);
            warned.setBoolean(null, true);
        } catch (ReflectiveOperationException | RuntimeException e) {
            // before JDK 23 there is no such warning
        }
    }
}
