package dev.dprof.it.app;

import net.bytebuddy.ByteBuddy;
import net.bytebuddy.dynamic.loading.ClassLoadingStrategy;
import net.bytebuddy.implementation.FixedValue;
import net.bytebuddy.matcher.ElementMatchers;

/**
 * An application with its own ByteBuddy on its class path (the agent's copy is relocated, so
 * the two never meet): on thread {@code bb} it subclasses {@link Greeter} with ByteBuddy,
 * overriding {@code greet()}, loads the subclass in a child class loader, and calls
 * {@link Greeter#work} {@code CALLS} times on an instance of it. Prints the greeting, the
 * generated class's ByteBuddy version and the sum.
 */
public final class ByteBuddyApp {
    private ByteBuddyApp() {
    }

    public static void main(String[] args) throws Exception {
        int calls = Integer.parseInt(args[0]);
        Exception[] failure = new Exception[1];
        Thread t = new Thread(() -> {
            try {
                Class<? extends Greeter> type = new ByteBuddy()
                        .subclass(Greeter.class)
                        .name("dev.dprof.it.app.GeneratedGreeter")
                        .method(ElementMatchers.named("greet")).intercept(FixedValue.value("hello from bytebuddy"))
                        .make()
                        .load(ByteBuddyApp.class.getClassLoader(), ClassLoadingStrategy.Default.WRAPPER)
                        .getLoaded();
                Greeter greeter = type.getDeclaredConstructor().newInstance();
                long sum = 0;
                for (int i = 0; i < calls; i++) {
                    sum += greeter.work(i);
                }
                System.out.println(greeter.greet() + " (" + type.getName() + ")");
                System.out.println("sum=" + sum);
            } catch (ReflectiveOperationException e) {
                failure[0] = e;
            }
        }, "bb");
        t.start();
        t.join();
        if (failure[0] != null) {
            throw failure[0];
        }
    }

    /** Subclassed by ByteBuddy at run time; {@code work} is a YAML region. */
    public static class Greeter {
        public Greeter() {
        }

        public String greet() {
            return "hello";
        }

        public long work(int i) {
            return i + 1L;
        }
    }
}
