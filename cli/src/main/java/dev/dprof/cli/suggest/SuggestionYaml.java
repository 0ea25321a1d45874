package dev.dprof.cli.suggest;

import dev.dprof.cli.suggest.Tally.Suggestion;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes suggested regions as a {@code dprof.yaml} (docs/CONFIG.md) that the agent accepts as it is.
 *
 * <p>Every region is {@code plain}: a send, a receive, a barrier or a handoff needs a key or a channel that only
 * the application's author knows, so the file says in comments where those would go instead of guessing one.
 * Handoffs between threads and TCP are recorded without regions ({@code handoffs: auto}, written out so the
 * file says so). Each region selects exactly one method: {@code class}, {@code method} and {@code descriptor}
 * are the recorded frame's, so an overload the run did not use is not woven.
 *
 * <p>Region names are {@code Outer$Inner#method}; an overload of a method already named adds its descriptor
 * ({@code Outer$Inner#method(J)V}), a method of another class of the same simple name uses the class's full name. A lambda's body keeps javac's name ({@code lambda$run$0}), which changes
 * when the lambdas above it in the source change: the comment says so, and that moving the body to a named
 * method makes the region stable. A constructor is {@code <init>}.
 */
public final class SuggestionYaml {
    private SuggestionYaml() {
    }

    /**
     * The file's text. {@code header} lines become comments at the top (how the run was recorded).
     */
    public static String write(List<String> header, List<Suggestion> suggestions) {
        StringBuilder y = new StringBuilder();
        for (String line : header) {
            // a command line may hold any character; a line break would end the comment
            y.append("# ").append(line.replaceAll("\\p{Cntrl}", " ")).append('\n');
        }
        y.append("""
                #
                # Every region below is plain: it times each call of one method. A method that sends or receives
                # the application's messages can become kind send/receive with the message's key, one every thread
                # waits at together kind barrier; see docs/CONFIG.md, "Regions".
                version: 1
                # Handoffs between threads (queues, executors, futures, thread start and join, monitor
                # notifications) and every TCP connection are recorded without regions:
                handoffs: auto
                """);
        if (suggestions.isEmpty()) {
            return y.append("regions: []\n").toString();
        }
        y.append("regions:\n");
        Map<String, Frame> names = new HashMap<>();
        for (Suggestion s : suggestions) {
            Frame m = s.method();
            for (String reason : s.reasons()) {
                y.append("  # ").append(reason).append('\n');
            }
            if (m.isLambdaBody()) {
                y.append("  # the body of a lambda: javac's name changes when lambdas above it in the source change;"
                        + " a named method keeps the region\n");
            }
            y.append("  - name: ").append(quote(name(m, names))).append('\n')
                    .append("    class: ").append(quote(m.className())).append('\n')
                    .append("    method: ").append(quote(m.methodName())).append('\n')
                    .append("    descriptor: ").append(quote(m.descriptor())).append('\n');
        }
        return y.toString();
    }

    private static String name(Frame m, Map<String, Frame> taken) {
        String simple = m.shortName();
        Frame owner = taken.get(simple);
        List<String> candidates = owner == null ? List.of(simple)
                : owner.className().equals(m.className()) ? List.of(simple + m.descriptor(), m.toString())
                : List.of(m.className() + "#" + m.methodName(), m.toString());
        for (String candidate : candidates) {
            if (taken.putIfAbsent(candidate, m) == null) {
                return candidate;
            }
        }
        throw new IllegalArgumentException("the same method twice: " + m);
    }

    /**
     * A YAML double-quoted scalar (YAML 1.1 §5.7): backslash and quote escaped, control characters as a
     * {@code \\u} escape of four hex digits.
     */
    static String quote(String s) {
        StringBuilder q = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                q.append('\\').append(c);
            } else if (c < 0x20 || c == 0x7f) {
                q.append(String.format("\\u%04x", (int) c));
            } else {
                q.append(c);
            }
        }
        return q.append('"').toString();
    }
}
