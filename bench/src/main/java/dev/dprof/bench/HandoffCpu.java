package dev.dprof.bench;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The arithmetic of {@code ./dprof bench handoff --cpu}: reading a thread's CPU time from its
 * schedstat, a fork's line, and the CPU per handoff over forks.
 */
final class HandoffCpu {
    /** What a fork's result line begins with. */
    static final String LINE_PREFIX = "handoff-cpu ";

    private HandoffCpu() {
    }

    /**
     * The CPU time in ns from the text of {@code /proc/…/schedstat}: its first field (time spent on
     * the CPU; then time waiting to run, and timeslices).
     */
    static long schedstatNanos(String schedstat) {
        String[] fields = schedstat.strip().split("\\s+");
        if (fields.length != 3) {
            throw new IllegalArgumentException("schedstat: expected 3 fields, got '" + schedstat.strip() + "'");
        }
        long ns = Long.parseLong(fields[0]);
        if (ns < 0) {
            throw new IllegalArgumentException("schedstat: negative CPU time '" + schedstat.strip() + "'");
        }
        return ns;
    }

    /**
     * The minor page faults from the text of {@code /proc/…/task/TID/stat}: the 10th field, the 8th
     * after the command name (which is in parentheses and may hold spaces).
     */
    static long minorFaults(String stat) {
        int close = stat.lastIndexOf(')');
        String[] fields = stat.substring(close + 1).strip().split("\\s+");
        if (close < 0 || fields.length < 8) {
            throw new IllegalArgumentException("stat: expected a command name and at least 8 fields, got '"
                    + stat.strip() + "'");
        }
        return Long.parseLong(fields[7]);
    }

    /**
     * One fork's result: handoffs, the CPU ns the application's thread and the drainer spent, and the
     * drainer's minor page faults (the drainer's figures -1: no drainer).
     */
    record Fork(long handoffs, long appNs, long drainerNs, long drainerFaults) {
        double appPerHandoff() {
            return (double) appNs / handoffs;
        }

        /** The drainer's CPU ns per handoff, NaN without a drainer. */
        double drainerPerHandoff() {
            return drainerNs < 0 ? Double.NaN : (double) drainerNs / handoffs;
        }

        /** The drainer's minor page faults per 1000 handoffs, NaN without a drainer. */
        double drainerFaultsPerThousand() {
            return drainerFaults < 0 ? Double.NaN : 1000.0 * drainerFaults / handoffs;
        }
    }

    /** The fork's result from its output, the line that begins with {@link #LINE_PREFIX}. */
    static Fork parse(List<String> output) {
        for (String line : output) {
            if (line.startsWith(LINE_PREFIX)) {
                String[] f = line.substring(LINE_PREFIX.length()).strip().split(" ");
                if (f.length != 4) {
                    throw new IllegalArgumentException("handoff --cpu fork: bad result line '" + line + "'");
                }
                Fork fork = new Fork(Long.parseLong(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2]),
                        Long.parseLong(f[3]));
                if (fork.handoffs <= 0 || fork.appNs < 0) {
                    throw new IllegalArgumentException("handoff --cpu fork: bad result line '" + line + "'");
                }
                return fork;
            }
        }
        throw new IllegalArgumentException("handoff --cpu fork: no line beginning '" + LINE_PREFIX.strip() + "'");
    }

    /** Median, min and max of some forks' values, NaN where there are none. */
    record Spread(double median, double min, double max) {
        static Spread of(double[] values) {
            double[] v = Arrays.stream(values).filter(x -> !Double.isNaN(x)).sorted().toArray();
            if (v.length == 0) {
                return new Spread(Double.NaN, Double.NaN, Double.NaN);
            }
            int n = v.length;
            double median = n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
            return new Spread(median, v[0], v[n - 1]);
        }

        @Override
        public String toString() {
            if (Double.isNaN(median)) {
                return "–";
            }
            return String.format(Locale.ROOT, "%.1f (%.1f–%.1f)", median, min, max);
        }
    }

    /**
     * Over {@code forks}: the application's and the drainer's CPU ns per handoff, and the drainer's
     * minor page faults per 1000 handoffs.
     */
    static Spread[] perHandoff(List<Fork> forks) {
        return new Spread[] {Spread.of(forks.stream().mapToDouble(Fork::appPerHandoff).toArray()),
            Spread.of(forks.stream().mapToDouble(Fork::drainerPerHandoff).toArray()),
            Spread.of(forks.stream().mapToDouble(Fork::drainerFaultsPerThousand).toArray())};
    }
}
