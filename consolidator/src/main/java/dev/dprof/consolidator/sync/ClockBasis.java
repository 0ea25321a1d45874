package dev.dprof.consolidator.sync;

import java.util.Locale;

/**
 * What a point method's line for one clock domain against its parent rests on: how many calibration
 * exchanges and run messages each way ({@link DomainClocks}). A line on few points is said so in
 * every output, since the regression's slope and the hull's corridor then hang on a handful of delays.
 *
 * @param pair         the two in words: the processes of each domain ({@code host-pid}), or the domain
 *                     when it has none, e.g. {@code vm-15713 against the reference}
 * @param exchanges    calibration round trips with the parent (each a point up and a point down)
 * @param messagesUp   the run's matched messages from the domain to its parent
 * @param messagesDown the run's matched messages from the parent to the domain
 * @param fit          how the line was found, in words
 */
public record ClockBasis(String domain, String parent, String pair, int exchanges, int messagesUp, int messagesDown, String fit) {
    /** Below this many points in either direction a line rests on few points. */
    public static final int FEW_POINTS = 8;

    public int pointsUp() {
        return exchanges + messagesUp;
    }

    public int pointsDown() {
        return exchanges + messagesDown;
    }

    public boolean fewPoints() {
        return Math.min(pointsUp(), pointsDown()) < FEW_POINTS;
    }

    /** One line for every text output. */
    public String line() {
        return String.format(Locale.ROOT, "%s: %d calibration exchanges, %d messages up, %d down (%d points"
                        + " up, %d down); %s%s", pair, exchanges, messagesUp, messagesDown, pointsUp(),
                pointsDown(), fit, fewPoints() ? "; few points" : "");
    }
}
