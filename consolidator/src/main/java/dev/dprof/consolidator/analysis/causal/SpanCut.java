package dev.dprof.consolidator.analysis.causal;

import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.profile.ProfileException;
import dev.dprof.format.FormatException;
import dev.dprof.format.profile.ProfileEvent;
import dev.dprof.format.profile.ProfileEventsReader;
import java.io.IOException;

/**
 * Where a span starts, known before the replay, so that the critical path (Hollingsworth §2.1)
 * can leave out what lies before it: the start {@code S} is the earliest first enter of the
 * {@code from} region over the threads ({@link WhatIf}'s span), known only as
 * {@code [startLo, startHi]} (the minimum over threads of their first enters' lower ends, and of
 * their upper ends). {@code endHi} is an upper bound on the span's end (the last exit of {@code to}
 * over the threads, or {@link Long#MAX_VALUE} without {@code to}).
 *
 * <p>The part of an edge {@code [t(p), t(v)]} of the path that lies after {@code S} is
 * {@code max(0, t(v) − max(t(p), S)) = max(0, min(w, t(v) − S))} with {@code w = t(v) − t(p)}: nondecreasing
 * in {@code w} and {@code t(v)}, nonincreasing in {@code S}, so its bounds are the function at
 * the corners of the box of their bounds ({@link #afterLo}, {@link #afterHi}; docs/BOUNDS.md,
 * "The critical path over a span").
 */
record SpanCut(long startLo, long startHi, long endHi) {

    /**
     * The span from {@code from}'s earliest first enter to {@code to}'s last exit (-1: none) in the
     * given view, or null without {@code from}: the span then starts at the profile's first event,
     * before which nothing lies, so there is nothing to cut.
     */
    static SpanCut scan(Profile profile, int from, int to, int streams, boolean truth) throws ProfileException {
        if (from < 0) {
            return null;
        }
        boolean[] entered = new boolean[streams];
        long startLo = Long.MAX_VALUE;
        long startHi = Long.MAX_VALUE;
        long endHi = to < 0 ? Long.MAX_VALUE : Long.MIN_VALUE;
        try (ProfileEventsReader events = profile.events()) {
            ProfileEvent e = new ProfileEvent();
            while (events.next(e)) {
                if (e.region < 0 || e.stream < 0 || e.stream >= streams) {
                    continue;
                }
                long lo = truth ? e.truth : e.lo;
                long hi = truth ? e.truth : e.hi;
                if (e.region == from && e.kind.opens() && !entered[e.stream]) {
                    entered[e.stream] = true;
                    startLo = Math.min(startLo, lo);
                    startHi = Math.min(startHi, hi);
                }
                if (to >= 0 && e.region == to && e.kind.closes()) {
                    endHi = Math.max(endHi, hi);
                }
            }
        } catch (IOException | FormatException e) {
            throw new ProfileException(profile.dir() + ": " + e.getMessage());
        }
        // No enter of from (or no exit of to): the replay says so in its own words.
        return startLo == Long.MAX_VALUE || endHi == Long.MIN_VALUE ? null : new SpanCut(startLo, startHi, endHi);
    }

    /** A lower bound on the part after the start of an edge of weight at least {@code wLo} ending at or after {@code vLo}. */
    long afterLo(long wLo, long vLo) {
        return Math.max(0, Math.min(wLo, vLo - startHi));
    }

    /** An upper bound on the part after the start of an edge of weight at most {@code wHi} ending at or before {@code vHi}. */
    long afterHi(long wHi, long vHi) {
        return Math.max(0, Math.min(wHi, vHi - startLo));
    }

    /** Whether an edge from at least {@code pLo} to at most {@code vHi} may overlap the span at all. */
    boolean mayOverlap(long pLo, long vHi) {
        return vHi > startLo && pLo < endHi;
    }
}
