package dev.dprof.report.perfetto;

import dev.dprof.consolidator.profile.ProfileInfo;
import java.util.BitSet;

/**
 * One thread of the profile: its Perfetto thread track, the packet sequence its events go on, and
 * what the export keeps while streaming it (open regions, the last timestamp, which interned names
 * its sequence has seen).
 */
final class ThreadTrack {
    final ProfileInfo.Stream stream;
    final OpenRegions regions = new OpenRegions();
    /** Which event-name iids this sequence has been given (interning is per sequence). */
    final BitSet internedNames = new BitSet();
    /**
     * Frames {@code [0, begun)} have had their {@code SLICE_BEGIN} written. Writing one writes every
     * frame below it first, so the begun frames are always the outermost ones.
     */
    int begun;
    private long lastNanos;
    private long raised;

    ThreadTrack(ProfileInfo.Stream stream) {
        this.stream = stream;
    }

    /** The tracks by stream index. */
    static ThreadTrack[] of(ProfileInfo info) {
        int size = info.streams().stream().mapToInt(ProfileInfo.Stream::index).max().orElse(-1) + 1;
        ThreadTrack[] tracks = new ThreadTrack[size];
        for (ProfileInfo.Stream s : info.streams()) {
            tracks[s.index()] = new ThreadTrack(s);
        }
        return tracks;
    }

    /**
     * The timestamp of the thread's next event drawn at {@code midpoint}: never before the thread's
     * previous one, nor before 0. Perfetto nests slices by time, so program order must survive; a
     * raise is counted (sound bounds of one thread are monotone, so it should not happen).
     */
    long at(long midpoint) {
        if (midpoint < lastNanos || midpoint < 0) {
            raised++;
            return lastNanos;
        }
        lastNanos = midpoint;
        return midpoint;
    }

    long lastNanos() {
        return lastNanos;
    }

    long raisedTimestamps() {
        return raised;
    }
}
