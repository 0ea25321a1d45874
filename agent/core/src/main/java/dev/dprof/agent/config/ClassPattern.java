package dev.dprof.agent.config;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A compiled class-name or method-name glob from the configuration.
 *
 * <p>Class globs are matched against binary class names with dots ({@code com.example.Worker$Inner}):
 * <ul>
 *   <li>{@code *} matches any characters within one package segment (no {@code .});</li>
 *   <li>{@code **} matches any characters, dots included;</li>
 *   <li>{@code ?} matches one character other than {@code .};</li>
 *   <li>everything else matches itself; {@code $} is an ordinary character (nested classes).</li>
 * </ul>
 *
 * <p>Method globs are matched against method names with the same {@code *} and {@code ?} ({@code **} is the same as
 * {@code *} there). {@code <init>} alone selects constructors; wildcards never match {@code <init>}, so {@code *}
 * means every method but no constructor.
 *
 * <p>{@link #matches(String)} does not allocate for exact names, for {@code prefix.**} and for {@code **}; any other
 * glob runs a precompiled {@link Pattern}.
 */
public final class ClassPattern {

    private enum Shape { EXACT, ANY, PREFIX, REGEX }

    private final String glob;
    private final boolean method;
    private final Shape shape;
    private final String literal;
    private final Pattern regex;

    private ClassPattern(String glob, boolean method, Shape shape, String literal, Pattern regex) {
        this.glob = glob;
        this.method = method;
        this.shape = shape;
        this.literal = literal;
        this.regex = regex;
    }

    /**
     * Compiles a class glob.
     *
     * @throws IllegalArgumentException if the glob is not valid; the message says why, without the glob itself
     */
    public static ClassPattern forClass(String glob) {
        String problem = classProblem(glob);
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
        if (!hasWildcard(glob)) {
            return new ClassPattern(glob, false, Shape.EXACT, glob, null);
        }
        if (glob.equals("**")) {
            return new ClassPattern(glob, false, Shape.ANY, "", null);
        }
        String head = glob.substring(0, glob.length() - 2);
        if (glob.endsWith("**") && !hasWildcard(head)) {
            return new ClassPattern(glob, false, Shape.PREFIX, head, null);
        }
        return new ClassPattern(glob, false, Shape.REGEX, null, Pattern.compile(toRegex(glob, false)));
    }

    /**
     * Compiles a method-name glob.
     *
     * @throws IllegalArgumentException if the glob is not valid; the message says why, without the glob itself
     */
    public static ClassPattern forMethod(String glob) {
        String problem = methodProblem(glob);
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
        if (!hasWildcard(glob)) {
            return new ClassPattern(glob, true, Shape.EXACT, glob, null);
        }
        return new ClassPattern(glob, true, Shape.REGEX, null, Pattern.compile(toRegex(glob, true)));
    }

    /** Why {@code glob} is not a valid class glob, or {@code null} if it is. */
    static String classProblem(String glob) {
        Objects.requireNonNull(glob, "glob");
        if (glob.isEmpty()) {
            return "empty pattern";
        }
        if (glob.indexOf('/') >= 0) {
            return "use '.' to separate packages, not '/'";
        }
        if (glob.contains("***")) {
            return "'***' is not a wildcard (use '*' or '**')";
        }
        int start = 0;
        while (true) {
            int dot = glob.indexOf('.', start);
            int end = dot < 0 ? glob.length() : dot;
            String problem = segmentProblem(glob, start, end, "package segment");
            if (problem != null) {
                return problem;
            }
            if (dot < 0) {
                return null;
            }
            start = dot + 1;
        }
    }

    /** Why {@code glob} is not a valid method glob, or {@code null} if it is. */
    static String methodProblem(String glob) {
        Objects.requireNonNull(glob, "glob");
        if (glob.isEmpty()) {
            return "empty pattern";
        }
        if (glob.equals("<init>")) {
            return null;
        }
        if (glob.equals("<clinit>")) {
            return "static initialisers ('<clinit>') cannot be profiled";
        }
        if (glob.indexOf('<') >= 0 || glob.indexOf('>') >= 0) {
            return "'<' and '>' are only allowed in '<init>' (constructors)";
        }
        if (glob.indexOf('.') >= 0) {
            return "a method pattern names a method, not a class: it cannot contain '.'";
        }
        if (glob.indexOf('(') >= 0) {
            return "a method pattern cannot contain '(' (use 'descriptor' to select an overload)";
        }
        if (glob.contains("***")) {
            return "'***' is not a wildcard (use '*')";
        }
        return segmentProblem(glob, 0, glob.length(), "method name");
    }

    private static String segmentProblem(String glob, int start, int end, String what) {
        if (start == end) {
            return "empty " + what;
        }
        for (int i = start; i < end; ) {
            int cp = glob.codePointAt(i);
            if (cp != '*' && cp != '?') {
                if (!Character.isJavaIdentifierPart(cp) || Character.isIdentifierIgnorable(cp)) {
                    return "invalid character " + charName(cp);
                }
                if (i == start && !Character.isJavaIdentifierStart(cp)) {
                    return what + " cannot start with " + charName(cp);
                }
            }
            i += Character.charCount(cp);
        }
        return null;
    }

    private static String charName(int cp) {
        if (cp == ' ') {
            return "' ' (space)";
        }
        if (Character.isISOControl(cp) || Character.isWhitespace(cp) || Character.isIdentifierIgnorable(cp)) {
            return String.format("U+%04X", cp);
        }
        return "'" + new String(Character.toChars(cp)) + "'";
    }

    private static boolean hasWildcard(String s) {
        return s.indexOf('*') >= 0 || s.indexOf('?') >= 0;
    }

    private static String toRegex(String glob, boolean method) {
        String oneChar = method ? "[^.<>]" : "[^.]";
        StringBuilder sb = new StringBuilder(glob.length() * 2);
        int literalStart = 0;
        for (int i = 0; i <= glob.length(); i++) {
            char c = i < glob.length() ? glob.charAt(i) : '*';
            if (c != '*' && c != '?') {
                continue;
            }
            if (i > literalStart) {
                sb.append(Pattern.quote(glob.substring(literalStart, i)));
            }
            if (i == glob.length()) {
                break;
            }
            if (c == '?') {
                sb.append(oneChar);
            } else if (i + 1 < glob.length() && glob.charAt(i + 1) == '*') {
                sb.append(method ? oneChar : ".").append('*');
                i++;
            } else {
                sb.append(oneChar).append('*');
            }
            literalStart = i + 1;
        }
        return sb.toString();
    }

    /** Whether {@code name} (a binary class name with dots, or a method name) matches this glob. */
    public boolean matches(String name) {
        switch (shape) {
            case EXACT:
                return literal.equals(name);
            case ANY:
                return true;
            case PREFIX:
                return name.startsWith(literal);
            default:
                return regex.matcher(name).matches();
        }
    }

    /** Whether this glob has no wildcard, i.e. matches exactly one name ({@link #glob()}). */
    public boolean isExact() {
        return shape == Shape.EXACT;
    }

    /** The glob as written. */
    public String glob() {
        return glob;
    }

    /** Whether this is a method-name glob (else a class glob). */
    public boolean isMethodPattern() {
        return method;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ClassPattern p && p.method == method && p.glob.equals(glob);
    }

    @Override
    public int hashCode() {
        return glob.hashCode() * 31 + (method ? 1 : 0);
    }

    @Override
    public String toString() {
        return glob;
    }
}
