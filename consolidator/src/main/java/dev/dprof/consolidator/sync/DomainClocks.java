package dev.dprof.consolidator.sync;

import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.profile.ProfileException;
import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.format.calibration.Zero;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Every clock domain of a profile placed on the reference by a point method, and what each placement
 * rests on ({@link ClockBasis}, per domain pair).
 *
 * <p>The points are those the papers fit (DProf §3.5, Duda et al. 1987): one per message between
 * two clocks, a message sent by the domain lying above the true line by its delay, one it received
 * below it — the calibration exchanges' pings and pongs ({@link CalibrationExchanges},
 * docs/CALIBRATION.md) and the run's matched messages alike. In two passes:
 * <ol>
 * <li>along the calibration tree (the reference at the root, whose ticks are the reference ticks),
 * each domain by its round trips with its parent alone, composed along the path;</li>
 * <li>each domain again, by its round trips and every matched message with another domain, the
 * other end read on the reference through its pass-1 line, so every domain is fitted to the whole
 * run's traffic whatever the order of the tree.</li>
 * </ol>
 * A domain the calibration does not reach (or with fewer than two round trips) is placed through
 * the run's messages alone (a breadth-first tree of the message graph, Jezequel's use of Duda), and
 * a profile without calibration exchanges (written before profiles kept them) is placed that way
 * from its first process, whose clock the least-squares line through its FreeZer midpoints puts on
 * the reference.
 *
 * <p>Processes of one domain read one counter, so they share one line; messages between them say
 * nothing about clocks and are not used.
 */
final class DomainClocks {
    /** Each process's line to the reference, and what each domain's rests on. */
    record Placed(LinearClock[] byProcess, List<ClockBasis> basis) {
    }

    private DomainClocks() {
    }

    /**
     * Places every process of {@code source} by regression or convex hull; a pair where the hull
     * cannot be drawn falls back to the regression and says so in {@code problems}.
     */
    static Placed place(Profile source, SyncMethod method, List<String> problems) throws ProfileException {
        Optional<CalibrationExchanges> exchanges = CalibrationExchanges.of(source);
        ProfileInfo info = source.info();
        List<String> domains = domains(info, exchanges);
        int[] clockOf = clockOf(info, domains);
        List<String> names = domains.stream().map(d -> name(info, d, exchanges)).toList();
        MessagePairs pairs = MessagePairs.read(source, clockOf, domains.size(), 0);
        LinearClock[] clocks = new LinearClock[domains.size()];
        List<ClockBasis> basis = new ArrayList<>();
        LinearClock[] calibrationOnly = new LinearClock[domains.size()];
        if (exchanges.isPresent()) {
            CalibrationExchanges cal = exchanges.get();
            clocks[domains.indexOf(cal.reference())] = new LinearClock(0, 0, 1);
            // Pass 1, parents first: each domain by its round trips alone, composed to the reference.
            for (boolean progress = true; progress; ) {
                progress = false;
                for (int d = 0; d < domains.size(); d++) {
                    Optional<String> parent = cal.parent(domains.get(d));
                    List<Zero> zeros = cal.zeros(domains.get(d));
                    // One round trip gives two points at one parent tick: no slope. Such a domain is left
                    // to the run's messages.
                    if (clocks[d] != null || parent.isEmpty() || zeros.size() < 2
                            || clocks[domains.indexOf(parent.get())] == null) {
                        continue;
                    }
                    MessagePairs.Direction[] both = withExchanges(new MessagePairs.Direction(),
                            new MessagePairs.Direction(), zeros);
                    clocks[d] = PointSync.fit(both[0], both[1], method, names.get(d) + " against "
                            + names.get(domains.indexOf(parent.get())), new ArrayList<>()).line()
                            .andThen(clocks[domains.indexOf(parent.get())]);
                    calibrationOnly[d] = clocks[d];
                    progress = true;
                }
            }
        } else {
            int root = clockOf[0];
            if (pairs.masterOnReference == null) {
                ProfileInfo.Process master = info.processes().get(0);
                throw new ProfileException("the master process " + master.host() + "-" + master.pid()
                        + " has no bounded event to place its clock on the reference");
            }
            clocks[root] = pairs.masterOnReference;
            problems.add(method.label() + ": the profile holds no calibration exchanges (consolidated before profiles "
                    + "kept them): clocks fitted to the run's messages only, " + domains.get(root)
                    + " placed by its FreeZer midpoints");
        }
        placeByMessages(pairs, clocks, method, domains, names, problems, basis);
        if (exchanges.isPresent()) {
            LinearClock[] placed = clocks.clone();
            for (int d = 0; d < domains.size(); d++) {
                if (calibrationOnly[d] != null) {
                    clocks[d] = withMessages(d, exchanges.get(), pairs, placed, calibrationOnly[d], method, domains,
                            names, problems, basis);
                }
            }
        }
        for (ProfileInfo.Process p : info.processes()) {
            if (clocks[clockOf[p.index()]] == null) {
                throw new ProfileException("process " + p.host() + "-" + p.pid() + " (domain " + p.domain() + ") has "
                        + "neither a calibration exchange nor a matched message with a placed domain: "
                        + method.label() + " cannot place its clock");
            }
        }
        LinearClock[] byProcess = new LinearClock[info.processes().size()];
        for (int p = 0; p < byProcess.length; p++) {
            byProcess[p] = clocks[clockOf[p]];
        }
        basis.stream().filter(ClockBasis::fewPoints).forEach(b -> problems.add(method.label() + ": " + b.line()));
        return new Placed(byProcess, basis);
    }

    /**
     * The controlled logical clock's pre-synchronization from the calibration exchanges (Rabenseifner
     * 1997; Becker et al. §3.1): each domain's offset against its parent measured at the start and the
     * end of the run — the tightest round trip of the first and of the last quarter of its exchanges,
     * the parent's tick against the node's midpoint {@code (k1 + k2)/2} — interpolated linearly
     * between them and composed along the path to the reference. Per process; null for a
     * process whose path has a domain with fewer than two round trips, or without exchanges at all.
     */
    static LinearClock[] offsetInterpolation(Profile source, List<ClockBasis> basis) throws ProfileException {
        ProfileInfo info = source.info();
        LinearClock[] byProcess = new LinearClock[info.processes().size()];
        Optional<CalibrationExchanges> exchanges = CalibrationExchanges.of(source);
        if (exchanges.isEmpty()) {
            return byProcess;
        }
        CalibrationExchanges cal = exchanges.get();
        Map<String, LinearClock> clocks = new LinkedHashMap<>();
        clocks.put(cal.reference(), new LinearClock(0, 0, 1));
        for (boolean progress = true; progress; ) {
            progress = false;
            for (String d : cal.domains()) {
                Optional<String> parent = cal.parent(d);
                if (clocks.containsKey(d) || parent.isEmpty() || !clocks.containsKey(parent.get())) {
                    continue;
                }
                List<Zero> zeros = cal.zeros(d).stream().sorted(Comparator.comparingLong(Zero::k1)).toList();
                if (zeros.size() < 2) {
                    continue;
                }
                LinearClock line = offsetLine(zeros);
                clocks.put(d, line.andThen(clocks.get(parent.get())));
                basis.add(new ClockBasis(d, parent.get(), name(info, d, exchanges) + " against "
                        + name(info, parent.get(), exchanges), zeros.size(), 0, 0, "offsets of the tightest "
                        + "calibration exchange of the first and of the last quarter of " + zeros.size() + ", interpolated"));
                progress = true;
            }
        }
        for (ProfileInfo.Process p : info.processes()) {
            byProcess[p.index()] = clocks.get(p.domain());
        }
        return byProcess;
    }

    /**
     * Pass 2: domain {@code d} on the reference, fitted to its round trips and to every matched message
     * with another placed domain, each other end read through its pass-1 line ({@code placed}): the
     * up points are {@code d}'s sends (a ping, a message out), the down points its receives. Where
     * the convex hulls of all of them leave no line between, the calibration-only line is kept.
     */
    private static LinearClock withMessages(int d, CalibrationExchanges cal, MessagePairs pairs, LinearClock[] placed,
                                            LinearClock calibrationOnly, SyncMethod method, List<String> domains,
                                            List<String> names, List<String> problems, List<ClockBasis> basis) {
        String parentDomain = cal.parent(domains.get(d)).orElseThrow();
        LinearClock parent = placed[domains.indexOf(parentDomain)];
        MessagePairs.Direction up = new MessagePairs.Direction();
        MessagePairs.Direction down = new MessagePairs.Direction();
        List<Zero> zeros = cal.zeros(domains.get(d));
        for (Zero z : zeros) {
            long a = Math.round(parent.apply(z.a()));
            up.add(z.k1(), a);
            down.add(a, z.k2());
        }
        int messagesUp = 0;
        int messagesDown = 0;
        for (int q = 0; q < placed.length; q++) {
            if (q == d || placed[q] == null) {
                continue;
            }
            MessagePairs.Direction out = pairs.direction(d, q);
            for (int i = 0; i < out.n; i++) {
                up.add(out.sent[i], Math.round(placed[q].apply(out.received[i])));
            }
            MessagePairs.Direction in = pairs.direction(q, d);
            for (int i = 0; i < in.n; i++) {
                down.add(Math.round(placed[q].apply(in.sent[i])), in.received[i]);
            }
            messagesUp += out.n;
            messagesDown += in.n;
        }
        String pair = names.get(d) + " against " + names.get(domains.indexOf(parentDomain));
        PointSync.Fit fit;
        if (method == SyncMethod.CH) {
            Optional<LinearClock> middle = PointSync.corridorMiddle(up, down, up.sent[0], up.received[0]);
            if (middle.isPresent()) {
                fit = new PointSync.Fit(middle.get(), "the middle of the convex hulls' corridor");
            } else {
                fit = new PointSync.Fit(calibrationOnly, "the calibration exchanges' line alone (with the run's "
                        + "messages no line separates the two directions)");
                problems.add("ch: " + pair + ": with the run's " + (messagesUp + messagesDown) + " messages no line "
                        + "separates the two directions: the calibration exchanges' line alone is used");
            }
        } else {
            fit = PointSync.fit(up, down, method, pair, problems);
        }
        basis.add(new ClockBasis(domains.get(d), parentDomain, pair, zeros.size(), messagesUp, messagesDown,
                fit.how() + (messagesUp + messagesDown == 0 ? "" : "; messages with the other domains read through "
                        + "their calibration-only lines")));
        return fit.line();
    }

    /**
     * The line through a domain's offsets against its parent at the start and the end of the run, from
     * its round trips sorted by time (at least two): each end's offset is the tightest round trip of
     * its quarter, as the start and end measurements take the best of several ping-pongs (the first
     * exchanges, taken while the JVMs start, can be 1 000 times wider than the rest); the offset of a
     * round trip is the parent's tick against the node's midpoint.
     */
    static LinearClock offsetLine(List<Zero> byTime) {
        int quarter = Math.max(1, byTime.size() / 4);
        Comparator<Zero> width = Comparator.comparingLong(Zero::widthTicks);
        Zero first = byTime.subList(0, quarter).stream().min(width).orElseThrow();
        Zero last = byTime.subList(byTime.size() - quarter, byTime.size()).stream().min(width).orElseThrow();
        double firstMid = first.k1() + (first.k2() - first.k1()) / 2.0;
        double lastMid = last.k1() + (last.k2() - last.k1()) / 2.0;
        double slope = (last.a() - first.a()) / (lastMid - firstMid);
        return new LinearClock(first.k1(), first.a() - slope * (firstMid - first.k1()), slope);
    }

    /** Domains no calibration reached, placed through the run's messages with a placed domain, breadth first. */
    private static void placeByMessages(MessagePairs pairs, LinearClock[] clocks, SyncMethod method, List<String> domains,
                                        List<String> names, List<String> problems, List<ClockBasis> basis) {
        List<List<Integer>> neighbours = pairs.neighbours();
        java.util.ArrayDeque<Integer> queue = new java.util.ArrayDeque<>();
        for (int d = 0; d < clocks.length; d++) {
            if (clocks[d] != null) {
                queue.add(d);
            }
        }
        while (!queue.isEmpty()) {
            int parent = queue.poll();
            for (int node : neighbours.get(parent)) {
                if (clocks[node] == null) {
                    clocks[node] = edge(pairs, node, parent, List.of(), method, domains, names, problems, basis)
                            .andThen(clocks[parent]);
                    queue.add(node);
                }
            }
        }
    }

    /** The line from domain {@code node}'s ticks to {@code parent}'s, fitted to their messages and round trips. */
    private static LinearClock edge(MessagePairs pairs, int node, int parent, List<Zero> zeros, SyncMethod method,
                                    List<String> domains, List<String> names, List<String> problems,
                                    List<ClockBasis> basis) {
        MessagePairs.Direction messagesUp = pairs.direction(node, parent);
        MessagePairs.Direction messagesDown = pairs.direction(parent, node);
        MessagePairs.Direction[] both = withExchanges(messagesUp, messagesDown, zeros);
        String pair = names.get(node) + " against " + names.get(parent);
        PointSync.Fit fit = PointSync.fit(both[0], both[1], method, pair, problems);
        basis.add(new ClockBasis(domains.get(node), domains.get(parent), pair, zeros.size(), messagesUp.n, messagesDown.n,
                fit.how() + (zeros.isEmpty() ? ", from the run's messages only (no calibration exchange with it)" : "")));
        return fit.line();
    }

    /**
     * The messages each way with the round trips added as messages: {up, down}, the ping {@code (k1, a)}
     * sent on the node's clock and received on the parent's, the pong {@code (a, k2)} the other way.
     */
    static MessagePairs.Direction[] withExchanges(MessagePairs.Direction up, MessagePairs.Direction down,
                                                  List<Zero> zeros) {
        MessagePairs.Direction u = up.copy();
        MessagePairs.Direction d = down.copy();
        for (Zero z : zeros) {
            u.add(z.k1(), z.a());
            d.add(z.a(), z.k2());
        }
        return new MessagePairs.Direction[] {u, d};
    }

    /** A domain in words: its processes, or the reference, or its id. */
    private static String name(ProfileInfo info, String domain, Optional<CalibrationExchanges> exchanges) {
        List<String> processes = info.processes().stream().filter(p -> p.domain().equals(domain))
                .map(p -> p.host() + "-" + p.pid()).toList();
        if (!processes.isEmpty()) {
            return String.join("+", processes);
        }
        return exchanges.isPresent() && exchanges.get().reference().equals(domain) ? "the reference" : domain;
    }

    /** The processes' domains in process order, then the calibration's other domains. */
    private static List<String> domains(ProfileInfo info, Optional<CalibrationExchanges> exchanges) {
        List<String> domains = new ArrayList<>();
        for (ProfileInfo.Process p : info.processes()) {
            if (!domains.contains(p.domain())) {
                domains.add(p.domain());
            }
        }
        exchanges.ifPresent(c -> c.domains().stream().filter(d -> !domains.contains(d)).forEach(domains::add));
        return domains;
    }

    private static int[] clockOf(ProfileInfo info, List<String> domains) {
        int[] clockOf = new int[info.processes().size()];
        for (ProfileInfo.Process p : info.processes()) {
            clockOf[p.index()] = domains.indexOf(p.domain());
        }
        return clockOf;
    }
}
