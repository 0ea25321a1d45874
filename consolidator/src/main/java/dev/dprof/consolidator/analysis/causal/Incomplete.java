package dev.dprof.consolidator.analysis.causal;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.dprof.consolidator.analysis.messages.HandoffEdges;
import dev.dprof.consolidator.analysis.messages.UnexplainedWaits;
import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.format.EventKind;
import dev.dprof.format.HandoffRegions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Says when the causal picture has gaps the analyses cannot see across: more than half of the
 * critical path (its upper bound) lies outside any region — the path runs through program-order
 * edges of threads doing something unrecorded, typically waiting for another thread in a way no
 * event records — or some takes have no recorded put, so what they waited for is not a join, or
 * threads returned from long waits that no recorded edge explains ({@link UnexplainedWaits}: the
 * agent's {@code wait: park in …} events not followed by a take, a receive or a barrier's exit).
 * Then what-if gains of the recorded regions can be far too small (a region the path reaches only
 * through an unrecorded wait gains nothing), and the note names the threads whose time outside
 * regions lies on the path (bounded per thread like the shares, {@link CausalReplay}), the widest
 * such gap on each, the sites whose takes lacked a put, the threads with the most unexplained wait
 * time and the methods they waited in, and YAML (docs/CONFIG.md) that would record what is
 * missing: for a wait, a take on the very method where it waited. Everything in it comes from the
 * profile; the placeholders stand for what only the application's code can say (who wakes the
 * waiter, what identifies what is handed over).
 *
 * @param outsideShareLo the share of the critical path outside any region, bounds
 * @param reasons        why the picture is incomplete, one line each
 * @param threads        the threads where the unexplained time or waits were, the most first
 * @param waits          the threads with the most unexplained wait time, and where they waited
 * @param suggestion     YAML that would record what is missing
 */
public record Incomplete(double outsideShareLo, double outsideShareHi, List<String> reasons, List<String> threads,
                         List<Waiting> waits, String suggestion) {
    /** The share of the path outside regions (upper bound) above which the picture counts as incomplete. */
    static final double OUTSIDE_LIMIT = 0.5;
    /** A thread is named when up to this share of the path, or more, is its time outside regions. */
    static final double THREAD_SHARE = 0.05;
    static final int MAX_NAMED = 5;
    /** Sites named per waiting thread. */
    static final int MAX_SITES = 3;

    /**
     * A thread whose long waits no recorded edge explains.
     *
     * @param thread its name and process, as in {@link #threads}
     * @param ms     their total length in milliseconds, as the agent's clock measured it (not a bound)
     * @param sites  where it waited, the longest first (at most {@value #MAX_SITES})
     */
    public record Waiting(String thread, int waits, double ms, List<WaitSite> sites) {
    }

    /**
     * A place where a thread waited: its region ({@code wait: park in org.example.Pipeline.awaitItem:57})
     * and the class, method and line read from it (null and -1 for the coarse site of waits beyond
     * the agent's walks, which names none).
     */
    public record WaitSite(String site, String className, String method, int line, int waits, double ms) {
        static WaitSite of(String site, UnexplainedWaits.Tally t) {
            String prefix = HandoffRegions.waitSiteName("");
            String where = site.startsWith(prefix) ? site.substring(prefix.length()) : "";
            int colon = where.lastIndexOf(':');
            int dot = colon < 0 ? -1 : where.lastIndexOf('.', colon);
            if (dot <= 0 || where.startsWith("(")) {
                return new WaitSite(site, null, null, -1, t.waits(), millis(t.nanos()));
            }
            int line;
            try {
                line = Integer.parseInt(where.substring(colon + 1));
            } catch (NumberFormatException e) {
                line = -1;
            }
            return new WaitSite(site, where.substring(0, dot), where.substring(dot + 1, colon), line, t.waits(),
                    millis(t.nanos()));
        }

        /** {@code Pipeline.awaitItem:57}, or the site's name when it names no method. */
        String shortName() {
            return className == null ? site
                    : className.substring(className.lastIndexOf('.') + 1) + "." + method + (line >= 0 ? ":" + line : "");
        }
    }

    /** The note for the replay {@code b} of a profile, or null when the picture is complete. */
    static Incomplete of(ProfileInfo info, CausalReplay.Result b, HandoffEdges handoffs) {
        double lo = CausalAnalysis.shareLo(b.cpLo()[b.outside()], b.pathLo(), b.pathHi());
        double hi = Math.min(1, CausalAnalysis.shareHi(b.cpHi()[b.outside()], b.pathLo(), b.pathHi()));
        int unmatched = handoffs.unexplainedTakes();
        UnexplainedWaits unexplained = handoffs.unexplainedWaits();
        boolean outside = hi > OUTSIDE_LIMIT;
        if (!outside && unmatched == 0 && unexplained.total().waits() == 0) {
            return null;
        }
        List<String> reasons = new ArrayList<>();
        if (outside) {
            reasons.add(String.format(Locale.ROOT, "[%.1f%%, %.1f%%] of the critical path lies outside any region",
                    100 * lo, 100 * hi));
        }
        List<String> sites = new ArrayList<>();
        handoffs.unmatchedTakesBySite().entrySet().stream()
                .sorted(Map.Entry.<Integer, Integer>comparingByValue().reversed())
                .forEach(e -> sites.add(regionName(info, e.getKey())));
        if (unmatched > 0) {
            reasons.add(unmatched + " take" + (unmatched == 1 ? "" : "s") + " without a recorded put, at "
                    + String.join("; ", sites.subList(0, Math.min(MAX_NAMED, sites.size())))
                    + (sites.size() > MAX_NAMED ? "; …" : ""));
        }
        List<Integer> named = new ArrayList<>();
        List<String> threads = new ArrayList<>();
        for (int s = 0; s < info.streams().size(); s++) {
            named.add(s);
        }
        named.removeIf(s -> b.cpHi()[b.threadOutside() + s] <= 0
                || CausalAnalysis.shareHi(b.cpHi()[b.threadOutside() + s], b.pathLo(), b.pathHi()) < THREAD_SHARE);
        named.sort(Comparator.comparingLong((Integer s) -> b.cpHi()[b.threadOutside() + s]).reversed());
        if (named.isEmpty()) {
            handoffs.unmatchedTakesByStream().entrySet().stream()
                    .sorted(Map.Entry.<Integer, Integer>comparingByValue().reversed())
                    .forEach(e -> named.add(e.getKey()));
        }
        List<Integer> shown = named.subList(0, Math.min(MAX_NAMED, named.size()));
        List<String> gaps = new ArrayList<>();
        for (int s : shown) {
            threads.add(threadName(info, s));
            CausalReplay.Stretch w = b.widest()[s];
            if (outside && w != null) {
                gaps.add(info.streams().get(s).name() + " " + where(info, w));
            }
        }
        if (!gaps.isEmpty()) {
            reasons.add("the widest unrecorded stretches: " + String.join("; ", gaps));
        }
        List<String> where = new ArrayList<>();
        List<Waiting> waits = waiting(info, unexplained, where);
        if (!waits.isEmpty()) {
            UnexplainedWaits.Tally all = unexplained.total();
            for (Waiting w : waits) {
                if (!threads.contains(w.thread())) {
                    threads.add(w.thread());
                }
            }
            reasons.add(all.waits() + " wait" + (all.waits() == 1 ? "" : "s") + " of at least "
                    + HandoffRegions.WAIT_THRESHOLD_NANOS / 1_000_000 + " ms with no recorded sender ("
                    + millisText(millis(all.nanos())) + " ms in all): " + String.join("; ", where)
                    + (unexplained.byStream().size() > waits.size() ? "; …" : ""));
        }
        return new Incomplete(lo, hi, reasons, threads, waits, suggestion(info, b, shown, sites, waits));
    }

    /**
     * The threads with the most unexplained wait time (at most {@value #MAX_NAMED}), each with its
     * longest sites; {@code where} gets "thread in Class.method:line, …" for each.
     */
    private static List<Waiting> waiting(ProfileInfo info, UnexplainedWaits unexplained, List<String> where) {
        List<Waiting> waits = new ArrayList<>();
        unexplained.byStream().entrySet().stream()
                .sorted(Comparator.comparingLong((Map.Entry<Integer, UnexplainedWaits.Tally> e) -> e.getValue().nanos())
                        .reversed().thenComparing(Map.Entry::getKey))
                .limit(MAX_NAMED)
                .forEach(e -> {
                    List<WaitSite> sites = unexplained.sitesOf(e.getKey()).entrySet().stream()
                            .sorted(Comparator.comparingLong((Map.Entry<Integer, UnexplainedWaits.Tally> x)
                                    -> x.getValue().nanos()).reversed().thenComparing(Map.Entry::getKey))
                            .limit(MAX_SITES)
                            .map(x -> WaitSite.of(regionName(info, x.getKey()), x.getValue()))
                            .toList();
                    waits.add(new Waiting(threadName(info, e.getKey()), e.getValue().waits(),
                            millis(e.getValue().nanos()), sites));
                    where.add(info.streams().get(e.getKey()).name() + " in "
                            + String.join(", ", sites.stream().map(WaitSite::shortName).toList()));
                });
        return waits;
    }

    private static double millis(long nanos) {
        return nanos / 1e6;
    }

    private static String millisText(double ms) {
        return String.format(Locale.ROOT, ms >= 100 ? "%.0f" : "%.1f", ms);
    }

    private static String threadName(ProfileInfo info, int stream) {
        ProfileInfo.Stream s = info.streams().get(stream);
        ProfileInfo.Process p = info.processes().get(s.process());
        return s.name() + " (" + p.host() + "-" + p.pid() + ")";
    }

    private static String regionName(ProfileInfo info, int region) {
        return region < 0 || region >= info.regions().size() ? "(no region)" : info.regions().get(region).name();
    }

    /** Where a thread's widest gap outside regions was: "after 'a' (exit), before 'b' (enter)". */
    private static String where(ProfileInfo info, CausalReplay.Stretch w) {
        return "after " + event(info, w.beforeRegion(), w.beforeKind()) + ", before "
                + event(info, w.afterRegion(), w.afterKind());
    }

    private static String event(ProfileInfo info, int region, EventKind kind) {
        String k = kind == null ? "its start" : kind.name().toLowerCase(Locale.ROOT).replace('_', ' ');
        return region < 0 ? k : "'" + regionName(info, region) + "' (" + k + ")";
    }

    private static String suggestion(ProfileInfo info, CausalReplay.Result b, List<Integer> threads, List<String> sites,
                                     List<Waiting> waits) {
        StringBuilder y = new StringBuilder();
        y.append("handoffs: auto   # queues, executors, futures, threads, monitors and long waits, without configuration\n");
        y.append("regions:\n");
        for (int s : threads) {
            CausalReplay.Stretch w = b.widest()[s];
            String thread = info.streams().get(s).name();
            y.append("  # what ").append(thread).append(" runs outside any region")
                    .append(w == null ? "" : " (widest gap " + where(info, w) + ")").append('\n');
            y.append("  - name: ").append(quote(thread + " work")).append('\n');
            y.append("    class: <the class ").append(thread).append(" runs there>\n");
            y.append("    method: <its method>\n");
        }
        for (String site : sites.subList(0, Math.min(MAX_NAMED, sites.size()))) {
            String kind = site.contains(": ") ? site.substring(0, site.indexOf(": ")) : HandoffRegions.Kind.CUSTOM.yamlName();
            String channel = kind + " hand-over " + (sites.indexOf(site) + 1);
            y.append("  # the hand-over the takes at '").append(site).append("' waited for, recorded at both ends\n");
            for (String side : new String[] {"put", "take"}) {
                y.append("  - name: ").append(quote(channel + " " + side)).append('\n');
                y.append("    class: <the class that ").append(side.equals("put") ? "hands over" : "takes").append(">\n");
                y.append("    method: <its method>\n");
                y.append("    kind: handoff\n");
                y.append("    side: ").append(side).append('\n');
                y.append("    channel: {const: ").append(quote(channel)).append("}\n");
                y.append("    key: ").append(side.equals("put") ? "{arg: 0}" : "{return: true}").append('\n');
            }
        }
        waitSuggestions(y, waits);
        return y.toString();
    }

    /**
     * For each method where the named threads waited with no recorded sender (the longest first,
     * each once): a take on that very method and a put on whatever wakes it, which only the
     * application's code can say, as the placeholders do; likewise the key.
     */
    private static void waitSuggestions(StringBuilder y, List<Waiting> waits) {
        List<String> done = new ArrayList<>();
        for (Waiting w : waits) {
            for (WaitSite site : w.sites()) {
                if (site.className() == null || done.contains(site.className() + "#" + site.method())
                        || done.size() == MAX_NAMED) {
                    continue;
                }
                done.add(site.className() + "#" + site.method());
                String simple = site.className().substring(site.className().lastIndexOf('.') + 1);
                String channel = "wait in " + simple + "." + site.method();
                y.append("  # ").append(w.thread(), 0, w.thread().lastIndexOf(" (")).append(" waited ")
                        .append(site.waits()).append(site.waits() == 1 ? " time" : " times").append(" (")
                        .append(millisText(site.ms())).append(" ms) in ").append(site.className()).append('.')
                        .append(site.method()).append(site.line() >= 0 ? " (line " + site.line() + ")" : "")
                        .append(" with no recorded sender.\n");
                y.append("  # The take is that method, once it has what it waited for; the put is whatever wakes it\n");
                y.append("  # (another thread's signal, release, countDown or unpark), which the profile cannot see.\n");
                y.append("  - name: ").append(quote(channel + " put")).append('\n');
                y.append("    class: <the class whose method wakes it>\n");
                y.append("    method: <that method>\n");
                y.append("    kind: handoff\n");
                y.append("    side: put\n");
                y.append("    channel: {const: ").append(quote(channel)).append("}\n");
                y.append("    key: <what identifies what is handed over, e.g. {arg: 0}>\n");
                y.append("  - name: ").append(quote(channel + " take")).append('\n');
                y.append("    class: ").append(site.className()).append('\n');
                y.append("    method: ").append(site.method()).append('\n');
                y.append("    kind: handoff\n");
                y.append("    side: take\n");
                y.append("    channel: {const: ").append(quote(channel)).append("}\n");
                y.append("    key: <the same, as the take sees it, e.g. {return: true}>\n");
            }
        }
    }

    private static String quote(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    /** One short paragraph for people: the reasons, the threads and sites, and that YAML follows. */
    @JsonProperty("note")
    public String note() {
        StringBuilder n = new StringBuilder("The causal picture is incomplete: ").append(String.join("; ", reasons))
                .append('.');
        if (!threads.isEmpty()) {
            n.append(" The unexplained time and waits were on ").append(String.join(", ", threads)).append('.');
        }
        n.append(" What-if gains of recorded regions may be too small where the path crosses what is not recorded;"
                + " YAML that would record it (docs/CONFIG.md):");
        return n.toString();
    }
}
