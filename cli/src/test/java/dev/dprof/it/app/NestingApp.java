package dev.dprof.it.app;

/**
 * Nesting, exceptions, recursion, a static method and constructors, all on one thread named
 * {@code nest} in a fixed order (the tests compare the exact event sequence, see {@link #main}).
 * The application checks itself that every exception it catches is the very one that was thrown,
 * with its message and its top stack frame unchanged, and prints one {@code ok …} line per check;
 * any difference is printed as {@code FAIL …} and ends the JVM with exit code 1.
 */
public final class NestingApp {
    private static boolean failed;

    private NestingApp() {
    }

    /**
     * Calls, in order: {@code outer()} (which calls {@code inner()} twice), {@code thrower()}
     * (throws), {@code catching()} (calls {@code thrower()} and catches), {@code rethrowing()}
     * (calls {@code thrower()} and lets it through), {@code recurse(3)}, {@code staticRegion()},
     * {@code new Widget(1)} and {@code new Widget(-1)} (throws after {@code super()}).
     */
    public static void main(String[] args) throws InterruptedException {
        Thread t = new Thread(NestingApp::run, "nest");
        t.start();
        t.join();
        if (failed) {
            System.exit(1);
        }
        System.out.println("done");
    }

    private static void run() {
        Nest nest = new Nest();
        check("outer", nest.outer() == 2);
        try {
            nest.thrower();
            check("thrower threw", false);
        } catch (IllegalStateException e) {
            checkSame("thrower", e, Nest.lastThrown, "boom thrower", "thrower");
        }
        check("catching", nest.catching() == 7);
        try {
            nest.rethrowing();
            check("rethrowing threw", false);
        } catch (IllegalStateException e) {
            checkSame("rethrowing", e, Nest.lastThrown, "boom thrower", "thrower");
        }
        check("recurse", nest.recurse(3) == 6);
        check("static", Nest.staticRegion(20) == 21);
        check("constructor", new Widget(1).size == 1);
        try {
            new Widget(-1);
            check("constructor threw", false);
        } catch (IllegalArgumentException e) {
            checkSame("constructor throw", e, Widget.lastThrown, "boom constructor -1", "<init>");
        }
    }

    private static void check(String what, boolean ok) {
        System.out.println((ok ? "ok " : "FAIL ") + what);
        failed |= !ok;
    }

    private static void checkSame(String what, RuntimeException caught, RuntimeException thrown, String message,
                                  String topMethod) {
        check(what + " same exception", caught == thrown);
        check(what + " message", message.equals(caught.getMessage()));
        StackTraceElement top = caught.getStackTrace()[0];
        check(what + " top frame " + top.getMethodName(), top.getMethodName().equals(topMethod));
        check(what + " no cause, no suppressed", caught.getCause() == null && caught.getSuppressed().length == 0);
    }

    /** The region methods. */
    public static final class Nest {
        static IllegalStateException lastThrown;

        int outer() {
            return inner() + inner();
        }

        int inner() {
            return 1;
        }

        void thrower() {
            lastThrown = new IllegalStateException("boom thrower");
            throw lastThrown;
        }

        int catching() {
            try {
                thrower();
                return 0;
            } catch (IllegalStateException e) {
                return 7;
            }
        }

        void rethrowing() {
            thrower();
        }

        int recurse(int n) {
            return n == 0 ? 0 : n + recurse(n - 1);
        }

        static int staticRegion(int x) {
            return x + 1;
        }
    }

    /** A constructor region: {@code new Widget(-1)} throws after {@code super()} has run. */
    public static final class Widget {
        static IllegalArgumentException lastThrown;
        final int size;

        Widget(int size) {
            super();
            if (size < 0) {
                lastThrown = new IllegalArgumentException("boom constructor " + size);
                throw lastThrown;
            }
            this.size = size;
        }
    }
}
