package dev.dprof.hostit;

import java.lang.management.ManagementFactory;
import javax.management.ObjectName;

/**
 * Prints, first thing in {@code main}, the JVM's stack of compiler directives
 * ({@code Compiler.directives_print}, through the platform's {@code DiagnosticCommand} MBean).
 */
public final class DirectiveApp {
    private DirectiveApp() {
    }

    public static void main(String[] args) throws Exception {
        Object printed = ManagementFactory.getPlatformMBeanServer().invoke(
                new ObjectName("com.sun.management:type=DiagnosticCommand"), "compilerDirectivesPrint",
                new Object[] {null}, new String[] {String[].class.getName()});
        System.out.println(printed);
    }
}
