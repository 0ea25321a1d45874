package dev.dprof.it.app;

import dev.dprof.api.DProf;
import dev.dprof.api.Region;

/**
 * Opts in through {@code dev.dprof.api} only (no YAML regions): on thread {@code api} it calls
 * {@code DProf.send("chan", 5)}, {@code DProf.receive("chan", 5)},
 * {@code DProf.barrierEnter(9, 2)}, {@code DProf.barrierExit(9, 2)}, {@code DProf.progress("items")}
 * three times, the {@code @Region("api.work")} method twice, the {@code @Region} method
 * {@code Annotated#plain} once, and the {@code @Region} constructor of {@link Annotated} once.
 * Without the agent every call is a no-op and the output is the same.
 */
public final class ApiApp {
    private ApiApp() {
    }

    public static void main(String[] args) throws InterruptedException {
        int[] result = new int[1];
        Thread t = new Thread(() -> {
            DProf.send("chan", 5);
            DProf.receive("chan", 5);
            DProf.barrierEnter(9, 2);
            DProf.barrierExit(9, 2);
            for (int i = 0; i < 3; i++) {
                DProf.progress("items");
            }
            Annotated a = new Annotated(3);
            result[0] = a.work() + a.work() + a.plain();
        }, "api");
        t.start();
        t.join();
        System.out.println("result=" + result[0]);
    }

    /** Regions by annotation. */
    public static final class Annotated {
        private final int base;

        @Region
        Annotated(int base) {
            this.base = base;
        }

        @Region("api.work")
        int work() {
            return base;
        }

        @Region
        int plain() {
            return base * 10;
        }
    }
}
