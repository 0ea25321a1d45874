package dev.dprof.agent.instrument;

import java.util.Collection;
import java.util.Locale;

/**
 * The existing name nearest to one the YAML wrote, for the line that says a region matched nothing:
 * {@code …quorum.Leeder} finds {@code …quorum.Leader}, {@code processAckk} finds {@code processAck}.
 *
 * <p>Distance is the optimal string alignment distance (Levenshtein with a swap of two neighbours as
 * one edit), case-insensitive. A name further than about a third of its length (at least 2 edits) is
 * no suggestion: a far "nearest" name would mislead more than it helps. Ties go to the
 * alphabetically first candidate, so the answer does not depend on the order the JVM lists classes in.
 */
final class NearestName {
    /** Added to the distance of a class in another package whose simple name is near. */
    private static final int OTHER_PACKAGE = 2;

    private NearestName() {
    }

    /** The candidate nearest to {@code written}, or empty when none is near enough. */
    static String method(String written, Collection<String> candidates) {
        return nearest(written, candidates, limit(written), false);
    }

    /**
     * The class nearest to the binary name {@code written}: by its whole name, or by its simple name
     * in another package ({@code com.x.Leader} for {@code com.x.quorum.Leader}, at a small cost).
     */
    static String className(String written, Iterable<String> candidates) {
        return nearest(written, candidates, limit(simpleName(written)), true);
    }

    /** The candidate with the least distance, without limit (the descriptors of one method name). */
    static String any(String written, Collection<String> candidates) {
        return nearest(written, candidates, Integer.MAX_VALUE, false);
    }

    private static int limit(String written) {
        return Math.max(2, written.length() / 3);
    }

    private static String nearest(String written, Iterable<String> candidates, int limit, boolean classes) {
        String best = "";
        int bestDistance = Integer.MAX_VALUE;
        String simple = classes ? simpleName(written) : written;
        for (String candidate : candidates) {
            if (candidate.equals(written)) {
                continue;
            }
            int d = Math.abs(candidate.length() - written.length()) <= limit
                    ? distance(written, candidate, limit) : Integer.MAX_VALUE;
            if (classes && d > limit) {
                String candidateSimple = simpleName(candidate);
                if (Math.abs(candidateSimple.length() - simple.length()) <= limit) {
                    int s = distance(simple, candidateSimple, limit);
                    d = s == Integer.MAX_VALUE ? s : s + OTHER_PACKAGE;
                }
            }
            if (d <= limit && (d < bestDistance || d == bestDistance && candidate.compareTo(best) < 0)) {
                best = candidate;
                bestDistance = d;
            }
        }
        return best;
    }

    /** The part after the last '.' (nested classes keep their '$'). */
    static String simpleName(String binaryName) {
        return binaryName.substring(binaryName.lastIndexOf('.') + 1);
    }

    /**
     * The optimal string alignment distance of {@code a} and {@code b}, case-insensitive, or
     * {@link Integer#MAX_VALUE} once it surely exceeds {@code limit}.
     */
    static int distance(String a, String b, int limit) {
        a = a.toLowerCase(Locale.ROOT);
        b = b.toLowerCase(Locale.ROOT);
        int n = a.length();
        int m = b.length();
        int[] before = new int[m + 1];
        int[] previous = new int[m + 1];
        int[] current = new int[m + 1];
        for (int j = 0; j <= m; j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= n; i++) {
            current[0] = i;
            int rowMin = current[0];
            for (int j = 1; j <= m; j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                int d = Math.min(Math.min(previous[j] + 1, current[j - 1] + 1), previous[j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d = Math.min(d, before[j - 2] + 1);
                }
                current[j] = d;
                rowMin = Math.min(rowMin, d);
            }
            if (rowMin > limit) {
                return Integer.MAX_VALUE;
            }
            int[] t = before;
            before = previous;
            previous = current;
            current = t;
        }
        return previous[m] > limit ? Integer.MAX_VALUE : previous[m];
    }
}
