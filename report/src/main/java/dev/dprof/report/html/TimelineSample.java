package dev.dprof.report.html;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.dprof.consolidator.analysis.messages.MessageMatcher;
import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.profile.ProfileException;
import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.format.FormatException;
import dev.dprof.format.profile.ProfileEvent;
import dev.dprof.format.profile.ProfileEventsReader;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;

/**
 * What the report's timeline draws, read in one pass with bounded memory whatever the profile's
 * length (level of detail): per thread the {@code maxSpans} longest region instances, each with
 * its enter and exit intervals (the uncertainty the page shows), and at most {@code maxMessages}
 * matched messages chosen uniformly at random (reservoir sampling, fixed seed, so a report is
 * reproducible). Times are ns from the first event's lower bound, at the reference's nominal rate.
 */
final class TimelineSample {
    /** One region instance: enter [lo, hi], exit [lo, hi] in reference ticks; depth on its thread's stack. */
    private record Span(int region, int depth, long enterLo, long enterHi, long exitLo, long exitHi) {
        long length() {
            return exitLo - enterHi;
        }
    }

    private record Sent(int stream, long lo, long hi) {
    }

    private record Arrow(int from, long sendLo, long sendHi, int to, long receiveLo, long receiveHi) {
    }

    private TimelineSample() {
    }

    static ObjectNode read(Profile profile, int maxSpans, int maxMessages, ObjectNode into) throws ProfileException {
        ProfileInfo info = profile.info();
        int streams = info.streams().size();
        List<PriorityQueue<Span>> kept = new ArrayList<>();
        long[] seen = new long[streams];
        int[][] openRegion = new int[streams][16];
        long[][] openLo = new long[streams][16];
        long[][] openHi = new long[streams][16];
        int[] depth = new int[streams];
        for (int s = 0; s < streams; s++) {
            kept.add(new PriorityQueue<>(Comparator.comparingLong(Span::length)));
        }
        MessageMatcher<Sent> matcher = new MessageMatcher<>(info);
        Arrow[] arrows = new Arrow[maxMessages];
        long messages = 0;
        SplittableRandom random = new SplittableRandom(1);
        long origin = Long.MAX_VALUE;
        long end = Long.MIN_VALUE;
        try (ProfileEventsReader events = profile.events()) {
            ProfileEvent e = new ProfileEvent();
            while (events.next(e)) {
                int s = e.stream;
                if (s < 0 || s >= streams) {
                    throw new ProfileException("an event of stream " + s + ", which profile.json does not list");
                }
                if (e.lo == Long.MIN_VALUE || e.hi == Long.MAX_VALUE) {
                    continue;
                }
                if (origin == Long.MAX_VALUE) {
                    origin = e.lo;
                }
                end = Math.max(end, e.hi);
                switch (e.kind) {
                    case ENTER, ENTER_INSTANCE, BARRIER_ENTER -> {
                        if (e.region >= 0) {
                            if (depth[s] == openRegion[s].length) {
                                openRegion[s] = Arrays.copyOf(openRegion[s], depth[s] * 2);
                                openLo[s] = Arrays.copyOf(openLo[s], depth[s] * 2);
                                openHi[s] = Arrays.copyOf(openHi[s], depth[s] * 2);
                            }
                            openRegion[s][depth[s]] = e.region;
                            openLo[s][depth[s]] = e.lo;
                            openHi[s][depth[s]] = e.hi;
                            depth[s]++;
                        }
                    }
                    case EXIT, EXIT_THROW, BARRIER_EXIT -> {
                        int at = depth[s] - 1;
                        while (at >= 0 && openRegion[s][at] != e.region) {
                            at--;
                        }
                        if (at >= 0) {
                            seen[s]++;
                            PriorityQueue<Span> heap = kept.get(s);
                            // Only a span that is kept is made: most of a long run's are not.
                            long length = e.lo - openHi[s][at];
                            if (heap.size() < maxSpans || heap.peek().length() < length) {
                                if (heap.size() == maxSpans) {
                                    heap.poll();
                                }
                                heap.add(new Span(e.region, at, openLo[s][at], openHi[s][at], e.lo, e.hi));
                            }
                            depth[s] = at;
                        }
                    }
                    case SEND -> matcher.send(e, new Sent(s, e.lo, e.hi));
                    case RECEIVE -> {
                        Sent sent = matcher.receive(e);
                        if (sent != null) {
                            Arrow a = new Arrow(sent.stream, sent.lo, sent.hi, s, e.lo, e.hi);
                            if (messages < maxMessages) {
                                arrows[(int) messages] = a;
                            } else {
                                long j = random.nextLong(messages + 1);
                                if (j < maxMessages) {
                                    arrows[(int) j] = a;
                                }
                            }
                            messages++;
                        }
                    }
                    default -> {
                    }
                }
            }
        } catch (IOException | FormatException e) {
            throw new ProfileException(profile.dir() + ": " + e.getMessage());
        }
        double nsPerTick = 1e9 / info.referenceTickHz();
        long zero = origin == Long.MAX_VALUE ? 0 : origin;
        into.put("spanNs", end == Long.MIN_VALUE ? 0 : (end - zero) * nsPerTick).put("maxSpansPerThread", maxSpans)
                .put("maxMessages", maxMessages).put("messages", messages);
        ArrayNode threads = into.putArray("threads");
        for (ProfileInfo.Stream stream : info.streams()) {
            ObjectNode t = threads.addObject().put("stream", stream.index()).put("process", stream.process())
                    .put("name", stream.name()).put("instances", seen[stream.index()]);
            List<Span> spans = new ArrayList<>(kept.get(stream.index()));
            spans.sort(Comparator.comparingLong(Span::enterLo));
            t.put("shown", spans.size());
            ArrayNode rows = t.putArray("spans");
            for (Span sp : spans) {
                rows.addArray().add(sp.region()).add(sp.depth()).add(ns(sp.enterLo(), zero, nsPerTick))
                        .add(ns(sp.enterHi(), zero, nsPerTick)).add(ns(sp.exitLo(), zero, nsPerTick))
                        .add(ns(sp.exitHi(), zero, nsPerTick));
            }
        }
        ArrayNode rows = into.putArray("arrows");
        for (int i = 0; i < Math.min(messages, maxMessages); i++) {
            Arrow a = arrows[i];
            rows.addArray().add(a.from()).add(ns(a.sendLo(), zero, nsPerTick)).add(ns(a.sendHi(), zero, nsPerTick))
                    .add(a.to()).add(ns(a.receiveLo(), zero, nsPerTick)).add(ns(a.receiveHi(), zero, nsPerTick));
        }
        return into;
    }

    private static double ns(long ticks, long zero, double nsPerTick) {
        return Math.round((ticks - zero) * nsPerTick * 10) / 10.0;
    }
}
