package dev.dprof.it.app;

/**
 * {@code CountingApp THREADS CALLS}: threads {@code worker-0…} each call {@link Work#compute} (an
 * instance method) and {@link Work#twice} (a static one) {@code CALLS} times, then main prints
 * {@code sum=…}. Every call happens on a worker thread, which ends before the JVM does, so each
 * worker's events run from THREAD_START to THREAD_END.
 */
public final class CountingApp {
    private CountingApp() {
    }

    public static void main(String[] args) throws InterruptedException {
        int threads = Integer.parseInt(args[0]);
        int calls = Integer.parseInt(args[1]);
        long[] sums = new long[threads];
        Thread[] workers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            int index = t;
            workers[t] = new Thread(() -> {
                Work work = new Work(index);
                long sum = 0;
                for (int i = 0; i < calls; i++) {
                    sum += work.compute(i);
                    sum += Work.twice(i);
                }
                sums[index] = sum;
            }, "worker-" + t);
            workers[t].start();
        }
        long total = 0;
        for (int t = 0; t < threads; t++) {
            workers[t].join();
            total += sums[t];
        }
        System.out.println("sum=" + total);
    }

    /** The region methods. */
    public static final class Work {
        private final int offset;

        Work(int offset) {
            this.offset = offset;
        }

        long compute(int i) {
            return (long) i * i + offset;
        }

        static long twice(int i) {
            return 2L * i;
        }
    }

    /** The sum main prints, for the tests to check the output is intact. */
    public static long expectedSum(int threads, int calls) {
        long total = 0;
        for (int t = 0; t < threads; t++) {
            for (int i = 0; i < calls; i++) {
                total += (long) i * i + t + 2L * i;
            }
        }
        return total;
    }
}
