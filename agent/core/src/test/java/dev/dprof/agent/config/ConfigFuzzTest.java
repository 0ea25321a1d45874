package dev.dprof.agent.config;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.dprof.testsupport.TestSettings;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Mangled versions of the full example: each either parses or fails with one ConfigException whose message is one
 * line naming the file and a line number; nothing else ever escapes (the agent must not crash its host).
 */
class ConfigFuzzTest {

    private static final Pattern ONE_LINE = Pattern.compile("fuzz\\.yaml:[1-9][0-9]*: [^\\r\\n]+");
    private static final String NOISE = ":-{}[],&*!#|>'\"?%@` \n\t<<0123456789abcxyzNL.\\$~";

    @Test
    void mangledFilesNeverThrowAnythingElse() throws Exception {
        String base = ConfigLoaderTest.resource("full.yaml");
        Random random = new Random(TestSettings.fuzzSeed(20240611L));
        int failures = 0;
        int rounds = TestSettings.fuzzRounds(3000);
        for (int round = 0; round < rounds; round++) {
            String yaml = mangle(base, random, 1 + random.nextInt(3));
            try {
                ConfigLoader.parse(yaml, "fuzz.yaml");
            } catch (ConfigException e) {
                failures++;
                if (!ONE_LINE.matcher(e.getMessage()).matches()) {
                    fail("round " + round + ": message is not one line with a line number: " + e.getMessage()
                            + "\n--- input ---\n" + yaml);
                }
            } catch (Throwable t) {
                throw new AssertionError("round " + round + ": " + t + "\n--- input ---\n" + yaml, t);
            }
        }
        assertTrue(failures > rounds / 3, "the mutations do break files: " + failures);
    }

    private static String mangle(String s, Random r, int times) {
        for (int t = 0; t < times; t++) {
            int op = r.nextInt(5);
            if (s.isEmpty()) {
                op = 1;
            }
            int at = s.isEmpty() ? 0 : r.nextInt(s.length());
            switch (op) {
                case 0 -> s = s.substring(0, at) + s.substring(Math.min(s.length(), at + 1 + r.nextInt(8)));
                case 1 -> {
                    StringBuilder sb = new StringBuilder();
                    for (int i = 1 + r.nextInt(4); i > 0; i--) {
                        sb.append(NOISE.charAt(r.nextInt(NOISE.length())));
                    }
                    s = s.substring(0, at) + sb + s.substring(at);
                }
                case 2 -> {
                    List<String> lines = new ArrayList<>(Arrays.asList(s.split("\n", -1)));
                    int i = r.nextInt(lines.size());
                    lines.add(r.nextInt(lines.size() + 1), lines.get(i));
                    s = String.join("\n", lines);
                }
                case 3 -> {
                    List<String> lines = new ArrayList<>(Arrays.asList(s.split("\n", -1)));
                    int i = r.nextInt(lines.size());
                    lines.set(i, lines.get(i).replaceFirst("^(\\s*)", r.nextBoolean() ? "$1  " : ""));
                    s = String.join("\n", lines);
                }
                default -> {
                    // replace a value by another token that appears in the file
                    String[] tokens = s.split("[\\s:,{}\\[\\]]+");
                    String from = tokens[r.nextInt(tokens.length)];
                    String to = tokens[r.nextInt(tokens.length)];
                    if (!from.isEmpty()) {
                        s = s.replaceFirst(Pattern.quote(from), java.util.regex.Matcher.quoteReplacement(to));
                    }
                }
            }
        }
        return s;
    }
}
