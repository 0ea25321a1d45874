package dev.dprof.agent.instrument;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.agent.bootstrap.MonitorHandoffs;
import dev.dprof.format.RegionInfo;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;
import org.junit.jupiter.api.Test;

/**
 * The call-site rewrite on a class of this test ({@link Mailbox}): every call of wait, notify and
 * notifyAll goes to {@link MonitorHandoffs}, each site becomes a region named after it, the
 * rewritten class behaves as the original (a handoff through the monitor, a timed wait, the
 * exceptions of a call without the monitor), and classes without such calls are passed over.
 */
class MonitorCallSitesTest {
    /** A one-slot mailbox on its own monitor, and misuses of a monitor. */
    public static final class Mailbox {
        private Object item;

        public synchronized void put(Object o) {
            item = o;
            notifyAll();
        }

        public synchronized Object take() throws InterruptedException {
            while (item == null) {
                wait();
            }
            Object o = item;
            item = null;
            return o;
        }

        public Object pollFor(long millis) throws InterruptedException {
            synchronized (this) {
                if (item == null) {
                    wait(millis, 0);
                }
                return item;
            }
        }

        public static String misuse() {
            Object lock = new Object();
            try {
                lock.notify();
                return "no exception";
            } catch (IllegalMonitorStateException e) {
                return "IllegalMonitorStateException";
            }
        }
    }

    /** No monitor calls at all, only strings that contain their names. */
    public static final class Plain implements Callable<Integer> {
        static final String TEXT = "wait, then notifyAll";
        static final double SCALE = 1.5;
        static final long BIG = 1L << 40;

        @Override
        public Integer call() {
            return TEXT.length() + (int) (SCALE * (BIG >>> 40));
        }
    }

    /** A method of its own named like one: the class is parsed, nothing is rewritten. */
    public static final class NamedLikeOne {
        public void notify(int times) {
        }
    }

    private final RegionTable table = new RegionTable(List.of(), "test.yaml");
    private final List<String> failures = new ArrayList<>();
    private final MonitorCallSites sites = new MonitorCallSites(name -> true, table,
            (name, t) -> failures.add(name + ": " + t));

    @Test
    void everyMonitorCallIsRedirectedAndEachSiteIsARegion() throws Exception {
        byte[] rewritten = sites.rewrite(bytesOf(Mailbox.class));
        assertNotNull(rewritten);
        Set<String> calls = calls(rewritten);
        assertFalse(calls.stream().anyMatch(c -> c.matches(".*\\.(wait|notify|notifyAll)\\(.*")
                && !c.startsWith(MonitorHandoffs.class.getName().replace('.', '/'))), calls::toString);
        assertTrue(calls.contains("dev/dprof/agent/bootstrap/MonitorHandoffs.notifyEvery(Ljava/lang/Object;I)V"), calls::toString);
        assertTrue(calls.contains("dev/dprof/agent/bootstrap/MonitorHandoffs.waitOn(Ljava/lang/Object;I)V"), calls::toString);
        assertTrue(calls.contains("dev/dprof/agent/bootstrap/MonitorHandoffs.waitOn(Ljava/lang/Object;JII)V"), calls::toString);
        assertTrue(calls.contains("dev/dprof/agent/bootstrap/MonitorHandoffs.notifyOne(Ljava/lang/Object;I)V"), calls::toString);
        List<String> names = new ArrayList<>();
        for (RegionInfo r; (r = table.pollUnwritten()) != null; ) {
            names.add(r.name());
            assertEquals("handoff", r.kind());
        }
        assertEquals(4, names.size(), names::toString);
        assertTrue(names.stream().anyMatch(n -> n.matches("monitor: notifyAll in MonitorCallSitesTest\\$Mailbox\\.put:\\d+")),
                names::toString);
        assertTrue(names.stream().anyMatch(n -> n.matches("monitor: wait in MonitorCallSitesTest\\$Mailbox\\.take:\\d+")),
                names::toString);
    }

    @Test
    void theRewrittenClassBehavesAsTheOriginal() throws Exception {
        Class<?> mailbox = new OneClassLoader(Mailbox.class.getName(), sites.rewrite(bytesOf(Mailbox.class)))
                .loadClass(Mailbox.class.getName());
        Object box = mailbox.getConstructor().newInstance();
        Method put = mailbox.getMethod("put", Object.class);
        Method take = mailbox.getMethod("take");
        Object[] taken = new Object[1];
        Thread taker = new Thread(() -> {
            try {
                taken[0] = take.invoke(box);
            } catch (ReflectiveOperationException e) {
                taken[0] = e;
            }
        });
        taker.start();
        put.invoke(box, "hello");
        taker.join();
        assertEquals("hello", taken[0]);
        assertNull(mailbox.getMethod("pollFor", long.class).invoke(box, 2L), "a timed wait nobody notifies");
        assertEquals("IllegalMonitorStateException", mailbox.getMethod("misuse").invoke(null));
        assertTrue(failures.isEmpty(), failures::toString);
    }

    @Test
    void aClassWithoutMonitorCallsIsPassedOver() throws IOException {
        byte[] plain = bytesOf(Plain.class);
        assertFalse(MonitorCallSites.namesMonitorMethod(plain));
        assertNull(sites.transform(getClass().getClassLoader(), Plain.class.getName().replace('.', '/'), null, null,
                plain));
        assertTrue(MonitorCallSites.namesMonitorMethod(bytesOf(Mailbox.class)));
        byte[] named = bytesOf(NamedLikeOne.class);
        assertTrue(MonitorCallSites.namesMonitorMethod(named));
        assertNull(sites.rewrite(named), "no call of Object's notify: left as it was");
    }

    @Test
    void theJdksClassesAndRetransformationsAreLeftAlone() throws IOException {
        byte[] bytes = bytesOf(Mailbox.class);
        String name = Mailbox.class.getName().replace('.', '/');
        assertNull(sites.transform(null, name, null, null, bytes), "the boot loader's");
        assertNull(sites.transform(ClassLoader.getPlatformClassLoader(), name, null, null, bytes), "the platform loader's");
        assertNull(sites.transform(getClass().getClassLoader(), name, Mailbox.class, null, bytes), "a retransformation");
        MonitorCallSites none = new MonitorCallSites(n -> false, table, (n, t) -> failures.add(n));
        assertNull(none.transform(getClass().getClassLoader(), name, null, null, bytes), "not the application's");
    }

    @Test
    void aBrokenClassFileIsReportedAndLeftAsItWas() {
        byte[] broken = {(byte) 0xCA, (byte) 0xFE, 1, 0, 4, 'w', 'a', 'i', 't'};
        assertNull(sites.transform(getClass().getClassLoader(), "x/Broken", null, null, broken));
        assertEquals(1, failures.size(), failures::toString);
        assertTrue(failures.get(0).startsWith("x.Broken: "), failures::toString);
    }

    private static Set<String> calls(byte[] classFile) {
        Set<String> calls = new TreeSet<>();
        new ClassReader(classFile).accept(new ClassVisitor(Opcodes.ASM9) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                                             String[] exceptions) {
                return new MethodVisitor(Opcodes.ASM9) {
                    @Override
                    public void visitMethodInsn(int opcode, String owner, String n, String d, boolean itf) {
                        calls.add(owner + "." + n + d);
                    }
                };
            }
        }, 0);
        return calls;
    }

    static byte[] bytesOf(Class<?> c) throws IOException {
        try (InputStream in = c.getResourceAsStream("/" + c.getName().replace('.', '/') + ".class")) {
            return in.readAllBytes();
        }
    }

    /** Defines one class from given bytes, everything else from its parent. */
    private static final class OneClassLoader extends ClassLoader {
        private final String name;
        private final byte[] bytes;

        OneClassLoader(String name, byte[] bytes) {
            super(MonitorCallSitesTest.class.getClassLoader());
            this.name = name;
            this.bytes = bytes;
        }

        @Override
        protected Class<?> loadClass(String n, boolean resolve) throws ClassNotFoundException {
            if (!n.equals(name)) {
                return super.loadClass(n, resolve);
            }
            synchronized (getClassLoadingLock(n)) {
                Class<?> c = findLoadedClass(n);
                return c != null ? c : defineClass(n, bytes, 0, bytes.length);
            }
        }
    }
}
