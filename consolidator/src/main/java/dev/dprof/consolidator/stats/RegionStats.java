package dev.dprof.consolidator.stats;

/**
 * Count and inclusive times of one region over all processes. Times are nanoseconds at each
 * process's nominal tick rate: a display unit, not a bound.
 */
public final class RegionStats {
    private final String name;
    private long count;
    private double totalNs;
    private double minNs = Double.POSITIVE_INFINITY;
    private double maxNs;

    RegionStats(String name) {
        this.name = name;
    }

    void add(double ns) {
        count++;
        totalNs += ns;
        minNs = Math.min(minNs, ns);
        maxNs = Math.max(maxNs, ns);
    }

    public String name() {
        return name;
    }

    public long count() {
        return count;
    }

    public double totalNs() {
        return totalNs;
    }

    public double meanNs() {
        return count == 0 ? 0 : totalNs / count;
    }

    public double minNs() {
        return count == 0 ? 0 : minNs;
    }

    public double maxNs() {
        return maxNs;
    }
}
