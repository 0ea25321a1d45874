package dev.dprof.it.app;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * {@code AttachApp BEFORE AFTER}: started without the agent; thread {@code ticker} loads
 * {@link Target} and calls {@link Target#tick} {@code BEFORE} times, then main prints
 * {@code ready} and waits for a line {@code go} on stdin (sent once the agent is attached), after
 * which a second thread {@code ticker-2} calls {@code tick} {@code AFTER} times; main prints
 * {@code done total=…}.
 */
public final class AttachApp {
    private AttachApp() {
    }

    public static void main(String[] args) throws Exception {
        int before = Integer.parseInt(args[0]);
        int after = Integer.parseInt(args[1]);
        Target target = new Target();
        run("ticker", target, before);
        System.out.println("ready");
        System.out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null && !line.equals("go")) {
            // wait for the test to attach the agent
        }
        run("ticker-2", target, after);
        System.out.println("done total=" + target.total);
    }

    private static void run(String name, Target target, int calls) throws InterruptedException {
        Thread t = new Thread(() -> {
            for (int i = 0; i < calls; i++) {
                target.tick(i);
            }
        }, name);
        t.start();
        t.join();
    }

    /** Loaded, linked and run before the agent arrives: weaving it needs retransformation. */
    public static final class Target {
        long total;

        void tick(int i) {
            total += i;
        }
    }
}
