package dev.dprof.format;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Whether a process's counter can be one clock domain, as the agent found it at start (docs/FORMAT.md,
 * "{@code K} clock check"; BOUNDS.md, "The counter is checked"). Bounds rest on every tick of a domain
 * being a reading of one counter that runs at a constant rate and reads the same on every CPU; a
 * counter that does not is not a clock the calibration can describe, and its domain gets no bound.
 *
 * <p>Only facts are recorded; the verdict is derived here, so every reader judges alike:
 * <ul>
 *   <li>the CPU's own word ({@link #cpuInvariant}): CPUID 0x80000007 EDX bit 8 on x86-64; the
 *       generic timer of aarch64 is invariant by architecture;</li>
 *   <li>the kernel's view of it ({@link #cpuFlags}): {@code constant_tsc} (the rate does not follow
 *       P-states) and {@code nonstop_tsc} (it does not stop in deep C-states) in every CPU's flags in
 *       {@code /proc/cpuinfo};</li>
 *   <li>whether the kernel still offers the TSC as a clocksource ({@link #availableClocksources}):
 *       when its watchdog marks the TSC unstable, or it never trusts it (failed boot-time sync check,
 *       {@code tsc=unstable}), {@code tsc} leaves {@code available_clocksource} (a clocksource marked
 *       unstable loses {@code CLOCK_SOURCE_VALID_FOR_HRES}, and with tickless or high-resolution timers
 *       — every mainstream kernel — only those are listed). The current clocksource is recorded but
 *       not judged: a KVM guest may run on {@code kvm-clock} with a sound TSC;</li>
 *   <li>the per-CPU check ({@link #cpus} .. {@link #maxBackwardTicks}): a thread pinned to each CPU
 *       of the process reads the counter after loading the other CPUs' latest reads, so its read is
 *       causally after them; a read lower than one of them is a counter behind another's.</li>
 * </ul>
 *
 * @param counter               what the probes read: {@code rdtsc}, {@code cntvct_el0} or {@code nanoTime}
 * @param cpuInvariant          the CPU's own word that the counter is invariant
 * @param cpuFlags              the counter flags every CPU lists in /proc/cpuinfo (of {@link #COUNTER_FLAGS}),
 *                              space-separated; null if the file could not be read
 * @param clocksource           the kernel's current clocksource; empty if unread
 * @param availableClocksources the kernel's available clocksources, space-separated; empty if unread
 * @param cpus                  CPUs the per-CPU check ran on; 0 if it did not run
 * @param reads                 counter reads of the check
 * @param crossings             comparisons of a read with a fresh read of another CPU
 * @param outOfOrder            reads lower than a read of another CPU that came before them
 * @param maxBackwardTicks      the largest such step back
 */
public record ClockCheck(String counter, Answer cpuInvariant, String cpuFlags, String clocksource,
                         String availableClocksources, int cpus, long reads, long crossings, long outOfOrder,
                         long maxBackwardTicks) {

    /** The /proc/cpuinfo flags that concern the TSC, in the order they are recorded. */
    public static final List<String> COUNTER_FLAGS = List.of("constant_tsc", "nonstop_tsc", "tsc_reliable",
            "tsc_known_freq");

    /** A yes or no that may not be known. */
    public enum Answer {
        UNKNOWN, YES, NO
    }

    /** What the check says about the domain. */
    public enum Verdict {
        /** One counter at a constant rate, in order on every CPU checked: bounds hold. */
        STEADY,
        /** The counter's rate may change or it may stop: no bound. */
        NOT_INVARIANT,
        /** Two CPUs' counters disagree: no bound. */
        OUT_OF_ORDER,
        /** {@code System.nanoTime}: the kernel's clock, monotonic across CPUs by its contract; nothing to check. */
        NOT_A_COUNTER
    }

    public ClockCheck {
        if (cpus < 0 || reads < 0 || crossings < 0 || outOfOrder < 0 || maxBackwardTicks < 0) {
            throw new IllegalArgumentException("negative count in a clock check");
        }
    }

    public void encode(ByteSink out) {
        out.writeByte(RecordType.CLOCK_CHECK);
        out.writeString(counter);
        out.writeByte(cpuInvariant.ordinal());
        out.writeBoolean(cpuFlags != null);
        out.writeString(cpuFlags == null ? "" : cpuFlags);
        out.writeString(clocksource);
        out.writeString(availableClocksources);
        out.writeVarLong(cpus);
        out.writeVarLong(reads);
        out.writeVarLong(crossings);
        out.writeVarLong(outOfOrder);
        out.writeVarLong(maxBackwardTicks);
    }

    /** Decodes the body after the type byte. */
    public static ClockCheck decode(ByteSource in) throws FormatException {
        String counter = in.readString("counter");
        int invariant = in.readByte("cpu invariant");
        if (invariant >= Answer.values().length) {
            throw new FormatException("unknown answer " + invariant + " in a clock check");
        }
        boolean flagsRead = in.readBoolean("cpu flags read");
        String flags = in.readString("cpu flags");
        String current = in.readString("clocksource");
        String available = in.readString("available clocksources");
        int cpus = in.readVarInt("cpus checked", 1 << 20);
        long reads = in.readVarLong("reads");
        long crossings = in.readVarLong("crossings");
        long outOfOrder = in.readVarLong("out of order");
        long back = in.readVarLong("largest step back");
        if (reads < 0 || crossings < 0 || outOfOrder < 0 || back < 0) {
            throw new FormatException("negative count in a clock check");
        }
        return new ClockCheck(counter, Answer.values()[invariant], flagsRead ? flags : null, current, available,
                cpus, reads, crossings, outOfOrder, back);
    }

    /** Whether the probes read the x86 time stamp counter. */
    private boolean isTsc() {
        return counter.equals("rdtsc") || counter.equals("rdtscp");
    }

    public Verdict verdict() {
        if (counter.equalsIgnoreCase("nanoTime")) {
            return Verdict.NOT_A_COUNTER;
        }
        if (outOfOrder > 0) {
            return Verdict.OUT_OF_ORDER;
        }
        return notInvariant().isEmpty() ? Verdict.STEADY : Verdict.NOT_INVARIANT;
    }

    /** Why the counter may not be invariant, one reason per signal; empty if none says so. */
    private List<String> notInvariant() {
        List<String> why = new ArrayList<>();
        if (cpuInvariant == Answer.NO) {
            why.add(isTsc() ? "the CPU does not report an invariant TSC (CPUID 0x80000007 EDX bit 8)"
                    : "the CPU does not report an invariant counter");
        }
        if (isTsc()) {
            if (cpuFlags != null) {
                Set<String> flags = Set.of(cpuFlags.isBlank() ? new String[0] : cpuFlags.trim().split("\\s+"));
                List<String> missing = new ArrayList<>();
                for (String f : List.of("constant_tsc", "nonstop_tsc")) {
                    if (!flags.contains(f)) {
                        missing.add(f);
                    }
                }
                if (!missing.isEmpty()) {
                    why.add("/proc/cpuinfo lacks " + String.join(" and ", missing) + " on some CPU");
                }
            }
            if (!availableClocksources.isBlank() && !List.of(availableClocksources.trim().split("\\s+")).contains("tsc")) {
                why.add("the kernel no longer offers tsc as a clocksource (marked unstable, or never trusted;"
                        + " available: " + availableClocksources.trim() + ")");
            }
        }
        return why;
    }

    /** Why the domain gets no bound, in one line; empty when the check passed or does not apply. */
    public Optional<String> fault() {
        return switch (verdict()) {
            case STEADY, NOT_A_COUNTER -> Optional.empty();
            case NOT_INVARIANT -> Optional.of("the " + counterName() + " is not invariant: "
                    + String.join("; ", notInvariant()));
            case OUT_OF_ORDER -> Optional.of(String.format(Locale.ROOT,
                    "the %s of %d CPUs disagree: %d of %d reads were lower than a read of another CPU that"
                            + " came before them, by up to %d ticks", counterName(), cpus, outOfOrder, reads, maxBackwardTicks));
        };
    }

    /** One line for people: the verdict and the evidence. */
    public String summary() {
        Verdict v = verdict();
        if (v == Verdict.NOT_A_COUNTER) {
            return "not checked: System.nanoTime is the kernel's clock";
        }
        StringBuilder sb = new StringBuilder(v == Verdict.STEADY ? "invariant" : fault().orElseThrow());
        sb.append(" (").append(counter);
        if (cpuFlags != null && isTsc()) {
            sb.append("; cpuinfo: ").append(cpuFlags.isBlank() ? "no counter flags" : cpuFlags);
        }
        if (!clocksource.isBlank()) {
            sb.append("; clocksource ").append(clocksource);
            if (!availableClocksources.isBlank()) {
                sb.append(" of ").append(availableClocksources.trim());
            }
        }
        if (cpus == 0) {
            sb.append("; CPUs not compared: the per-CPU check did not run");
        } else {
            sb.append(String.format(Locale.ROOT, "; %d CPU%s, %d reads, %d crossings, %d out of order", cpus,
                    cpus == 1 ? "" : "s", reads, crossings, outOfOrder));
            if (cpus > 1 && crossings == 0) {
                sb.append(", the CPUs' counters never compared");
            }
        }
        return sb.append(')').toString();
    }

    private String counterName() {
        return isTsc() ? "TSC" : "counter (" + counter + ")";
    }
}
