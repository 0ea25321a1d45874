package dev.dprof.consolidator.stats;

/**
 * Count and inclusive times of one region over all processes, and its instances still open when
 * their thread's recording ended (entered, never exited: a main loop still running at exit, or a
 * killed process), which have no duration and are counted apart, with how long the longest had
 * run by then. Times are nanoseconds at each process's nominal tick rate: a display unit, not a bound.
 */
public final class RegionStats {
    private final String name;
    private long count;
    private double totalNs;
    private double minNs = Double.POSITIVE_INFINITY;
    private double maxNs;
    private long open;
    private double openAtLeastNs;

    RegionStats(String name) {
        this.name = name;
    }

    void add(double ns) {
        count++;
        totalNs += ns;
        minNs = Math.min(minNs, ns);
        maxNs = Math.max(maxNs, ns);
    }

    /** An instance still open at the end: it had run {@code atLeastNs} by its process's last event. */
    void addOpen(double atLeastNs) {
        open++;
        openAtLeastNs = Math.max(openAtLeastNs, atLeastNs);
    }

    /** Instances still open at the end (no duration; not in {@link #count}). */
    public long open() {
        return open;
    }

    /** How long the longest open instance had run by its process's last event (0 without one). */
    public double openAtLeastNs() {
        return openAtLeastNs;
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
