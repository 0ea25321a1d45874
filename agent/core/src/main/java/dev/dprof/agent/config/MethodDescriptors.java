package dev.dprof.agent.config;

/** Syntax check of JVM method descriptors (JVMS 4.3.3), e.g. {@code (ILjava/lang/String;[J)V}. */
final class MethodDescriptors {

    private static final int MAX_DIMENSIONS = 255;
    private static final int MAX_PARAMETER_SLOTS = 255;

    private MethodDescriptors() {
    }

    /** Why {@code d} is not a valid method descriptor, or {@code null} if it is. */
    static String problem(String d) {
        if (d.isEmpty()) {
            return "empty descriptor";
        }
        if (d.charAt(0) != '(') {
            return "must start with '('";
        }
        int i = 1;
        int slots = 0;
        while (true) {
            if (i >= d.length()) {
                return "missing ')'";
            }
            if (d.charAt(i) == ')') {
                i++;
                break;
            }
            int start = i;
            Object r = fieldType(d, i, "parameter");
            if (r instanceof String problem) {
                return problem;
            }
            i = (Integer) r;
            char t = d.charAt(start);
            slots += (t == 'J' || t == 'D') ? 2 : 1;
        }
        if (slots > MAX_PARAMETER_SLOTS) {
            return "more than " + MAX_PARAMETER_SLOTS + " parameter slots";
        }
        if (i >= d.length()) {
            return "missing return type after ')'";
        }
        if (d.charAt(i) == 'V') {
            i++;
        } else {
            Object r = fieldType(d, i, "return");
            if (r instanceof String problem) {
                return problem;
            }
            i = (Integer) r;
        }
        if (i != d.length()) {
            return "unexpected '" + d.substring(i) + "' after the return type";
        }
        return null;
    }

    /** Whether {@code d} (a valid descriptor) returns {@code void}. */
    static boolean returnsVoid(String d) {
        return d.endsWith(")V");
    }

    /** Parses one field type at {@code i}: the index after it (Integer), or the problem (String). */
    private static Object fieldType(String d, int i, String what) {
        int dims = 0;
        while (i < d.length() && d.charAt(i) == '[') {
            dims++;
            i++;
        }
        if (dims > MAX_DIMENSIONS) {
            return "array of more than " + MAX_DIMENSIONS + " dimensions";
        }
        if (i >= d.length()) {
            return "missing " + (dims > 0 ? "array element type" : what + " type");
        }
        char c = d.charAt(i);
        switch (c) {
            case 'B': case 'C': case 'D': case 'F': case 'I': case 'J': case 'S': case 'Z':
                return i + 1;
            case 'V':
                return "'V' (void) is only allowed as the return type";
            case 'L': {
                int semi = d.indexOf(';', i);
                if (semi < 0) {
                    return "class name at offset " + i + " is not terminated by ';'";
                }
                String name = d.substring(i + 1, semi);
                if (name.isEmpty()) {
                    return "empty class name at offset " + i;
                }
                if (name.indexOf('.') >= 0) {
                    return "class names in descriptors use '/', not '.' ('" + name + "')";
                }
                for (String part : name.split("/", -1)) {
                    if (part.isEmpty()) {
                        return "empty name segment in class name '" + name + "'";
                    }
                    for (int k = 0; k < part.length(); k++) {
                        char ch = part.charAt(k);
                        if (ch == '[' || ch == '(' || ch == ')' || ch == '<' || ch == '>' || ch == ':'
                                || Character.isWhitespace(ch) || Character.isISOControl(ch)) {
                            return "invalid character in class name '" + name + "'";
                        }
                    }
                }
                return semi + 1;
            }
            default:
                return "unknown type '" + c + "' at offset " + i
                        + " (expected one of B, C, D, F, I, J, S, Z, L<class>; or [)";
        }
    }
}
