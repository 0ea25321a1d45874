package dev.dprof.api;

/**
 * Calls that let code state communication and progress explicitly. Every method is a no-op
 * without the dprof agent; with it, the agent weaves each into a probe.
 *
 * <p>Stamping rules that make causality a fact: call {@link #send} before the message's bytes
 * leave and {@link #receive} after they have arrived; {@code send(c, s)} is matched with
 * {@code receive(c, s)} across processes. A barrier instance is identified by its key; all of
 * its participants call {@link #barrierEnter} on arrival and {@link #barrierExit} on leaving.
 */
public final class DProf {
    private DProf() {
    }

    /** A message with sequence key {@code seq} on {@code channel} is about to leave. */
    public static void send(String channel, long seq) {
        // woven by the agent
    }

    /** A message with sequence key {@code seq} on {@code channel} has arrived. */
    public static void receive(String channel, long seq) {
        // woven by the agent
    }

    /** This thread arrives at barrier instance {@code key} of {@code participants} threads. */
    public static void barrierEnter(long key, int participants) {
        // woven by the agent
    }

    /** This thread leaves barrier instance {@code key}. */
    public static void barrierExit(long key, int participants) {
        // woven by the agent
    }

    /**
     * This thread arrives at instance {@code key} of a collective operation of {@code participants} threads, as
     * participant {@code rank}, {@code root} being the root's rank. {@code flavour} says which arrivals a departure
     * waits for (Becker et al. 2009, §4.1): {@code "allreduce"} (also {@code barrier}, {@code allgather},
     * {@code alltoall}) all of them; {@code "bcast"} ({@code scatter}) the root's; {@code "reduce"}
     * ({@code gather}) all, for the root's departure only; {@code "scan"} those of ranks ≤ the departing one's,
     * {@code "exscan"} those of lower ranks. Rank and root are ignored where the flavour needs none (pass 0).
     */
    public static void collectiveEnter(String flavour, long key, int participants, int rank, int root) {
        // woven by the agent
    }

    /** This thread leaves instance {@code key} of the collective; the same arguments as its {@link #collectiveEnter}. */
    public static void collectiveExit(String flavour, long key, int participants, int rank, int root) {
        // woven by the agent
    }

    /** A unit of useful work is done (a Coz progress point); {@code name} names the point. */
    public static void progress(String name) {
        // woven by the agent
    }
}
