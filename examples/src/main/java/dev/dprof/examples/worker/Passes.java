package dev.dprof.examples.worker;

/**
 * How a straggler does {@code factor} times its normal share of work without changing the result:
 * it runs its body over its share more than once. A factor of 2.5 is one extra pass over the
 * first half of the share, then two whole passes; the last pass is always a whole one, so bodies
 * that start from scratch each pass (K-Means' partial sums) end with the same values as one pass.
 */
public record Passes(int whole, double fraction) {
    public Passes {
        if (whole < 1 || fraction < 0 || fraction >= 1) {
            throw new IllegalArgumentException("passes " + whole + " + " + fraction);
        }
    }

    public static Passes of(double factor) {
        if (!(factor >= 1) || Double.isInfinite(factor)) {
            throw new IllegalArgumentException("work factor " + factor + " is not a finite number >= 1");
        }
        int whole = (int) Math.floor(factor);
        return new Passes(whole, factor - whole);
    }

    /** End of the extra partial pass over {@code [from, to)}; equal to {@code from} when there is none. */
    public int partialEnd(int from, int to) {
        return from + (int) Math.round((to - from) * fraction);
    }

    /** One pass of a body over {@code [first, end)}. */
    @FunctionalInterface
    public interface Pass {
        void over(int first, int end);
    }

    /** Runs the extra partial pass over {@code [from, to)}, if any, then the whole passes: the last is whole. */
    public void run(int from, int to, Pass pass) {
        int partial = partialEnd(from, to);
        if (partial > from) {
            pass.over(from, partial);
        }
        for (int p = 0; p < whole; p++) {
            pass.over(from, to);
        }
    }
}
