package dev.dprof.hostit;

/** A trivial program, one line on each stream; {@link #greet} is the profiled region. */
public final class QuietApp {
    private QuietApp() {
    }

    public static void main(String[] args) {
        System.out.println(greet("host"));
        System.err.println("the application's own line on stderr");
    }

    static String greet(String who) {
        return "hello, " + who;
    }
}
