package dev.dprof.calibrator.net;

/**
 * Checks a packet's text in place, allocating nothing: well-formed UTF-8 (the JDK decoder's rules
 * with malformed input reported: no overlong forms, no surrogates, nothing above U+10FFFF) that is
 * a token of a calibration file — non-empty, without blanks, whitespace or control characters.
 * Decoding to a {@code String} first would allocate for every hello that reaches a server.
 */
final class Utf8Token {
    static final int VALID = 0;
    /** Not well-formed UTF-8. */
    static final int NOT_UTF8 = 1;
    /** Empty, or holds a blank, whitespace or a control character. */
    static final int NOT_A_TOKEN = 2;

    private Utf8Token() {
    }

    /** {@link #VALID}, {@link #NOT_UTF8} or {@link #NOT_A_TOKEN} for {@code in[from, from + length)}. */
    static int check(byte[] in, int from, int length) {
        int end = from + length;
        boolean token = length > 0;
        int i = from;
        while (i < end) {
            int b0 = in[i] & 0xFF;
            int c;
            int n;
            if (b0 < 0x80) {
                c = b0;
                n = 1;
            } else if (b0 >= 0xC2 && b0 <= 0xDF) {
                n = 2;
                c = b0 & 0x1F;
            } else if (b0 >= 0xE0 && b0 <= 0xEF) {
                n = 3;
                c = b0 & 0x0F;
            } else if (b0 >= 0xF0 && b0 <= 0xF4) {
                n = 4;
                c = b0 & 0x07;
            } else {
                return NOT_UTF8;
            }
            if (end - i < n) {
                return NOT_UTF8;
            }
            for (int k = 1; k < n; k++) {
                int b = in[i + k] & 0xFF;
                if ((b & 0xC0) != 0x80) {
                    return NOT_UTF8;
                }
                c = (c << 6) | (b & 0x3F);
            }
            // overlong forms, surrogates and code points past U+10FFFF are malformed
            if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10FFFF)) || (c >= 0xD800 && c <= 0xDFFF)) {
                return NOT_UTF8;
            }
            token &= c > ' ' && !Character.isWhitespace(c) && !Character.isISOControl(c);
            i += n;
        }
        return token ? VALID : NOT_A_TOKEN;
    }
}
