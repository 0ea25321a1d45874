package dev.dprof.consolidator.analysis.causal;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.dprof.consolidator.analysis.messages.HandoffEdges;
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
 * event records — or some takes have no recorded put, so what they waited for is not a join. Then
 * what-if gains of the recorded regions can be far too small (a region the path reaches only
 * through an unrecorded wait gains nothing), and the note names the threads whose time outside
 * regions lies on the path (bounded per thread like the shares, {@link CausalReplay}), the widest
 * such gap on each, the sites whose takes lacked a put, and YAML (docs/CONFIG.md) that would record
 * what is missing. Everything in it comes from the profile.
 *
 * @param outsideShareLo the share of the critical path outside any region, bounds
 * @param reasons        why the picture is incomplete, one line each
 * @param threads        the threads where the unexplained time or waits were, the most first
 * @param suggestion     YAML that would record what is missing, with placeholders for what only the
 *                       application's code can say (the class and method)
 */
public record Incomplete(double outsideShareLo, double outsideShareHi, List<String> reasons, List<String> threads,
                         String suggestion) {
    /** The share of the path outside regions (upper bound) above which the picture counts as incomplete. */
    static final double OUTSIDE_LIMIT = 0.5;
    /** A thread is named when up to this share of the path, or more, is its time outside regions. */
    static final double THREAD_SHARE = 0.05;
    static final int MAX_NAMED = 5;

    /** The note for the replay {@code b} of a profile, or null when the picture is complete. */
    static Incomplete of(ProfileInfo info, CausalReplay.Result b, HandoffEdges handoffs) {
        double lo = CausalAnalysis.shareLo(b.cpLo()[b.outside()], b.pathLo(), b.pathHi());
        double hi = Math.min(1, CausalAnalysis.shareHi(b.cpHi()[b.outside()], b.pathLo(), b.pathHi()));
        int unmatched = handoffs.unexplainedTakes();
        boolean outside = hi > OUTSIDE_LIMIT;
        if (!outside && unmatched == 0) {
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
        return new Incomplete(lo, hi, reasons, threads, suggestion(info, b, shown, sites));
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

    private static String suggestion(ProfileInfo info, CausalReplay.Result b, List<Integer> threads, List<String> sites) {
        StringBuilder y = new StringBuilder();
        y.append("handoffs: auto   # queues, executors, futures and threads, recorded without configuration\n");
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
        return y.toString();
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
