package dev.dprof.examples.service;

/** The computation the service sells: a chain of SplitMix64 steps, cheap to describe, costly to do. */
final class Kernel {
    private Kernel() {
    }

    static long hash(long key, long rounds) {
        long x = key;
        for (long i = 0; i < rounds; i++) {
            x += 0x9E3779B97F4A7C15L;
            long z = x;
            z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
            z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
            x = z ^ (z >>> 31);
        }
        return x;
    }
}
