package dev.dprof.examples.worker;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;
import org.junit.jupiter.api.Test;

class PassesTest {
    @Test
    void aFactorIsWholePassesPlusAPartialOne() {
        Passes p = Passes.of(2.5);
        assertEquals(2, p.whole());
        assertEquals(150, p.partialEnd(100, 200));
        assertEquals(100, Passes.of(1).partialEnd(100, 200));
        assertThrows(IllegalArgumentException.class, () -> Passes.of(0.5));
    }

    @Test
    void sharesCoverTheRange() {
        assertArrayEquals(new int[] {0, 3, 6, 10}, Share.even(0, 10, 3));
        assertArrayEquals(new int[] {0, 1, 4}, Share.byWeight(0, 4, 2, i -> i == 0 ? 3 : 1));
    }

    @Test
    void argsRejectUnknownOptionsAndTheStragglerFactorIsOnlyItsOwn() {
        assertThrows(IllegalArgumentException.class, () -> Args.parse(new String[] {"--pionts", "3"}, Args.COMMON));
        assertThrows(IllegalArgumentException.class, () -> Args.parse(new String[] {"--threads"}, Args.COMMON));
        Map<String, String> defaults = Args.COMMON;
        String peers = "127.0.0.1:1,127.0.0.1:2";
        Args straggler = Args.parse(new String[] {"--rank", "1", "--peers", peers, "--straggler", "1",
                "--imbalance", "2"}, defaults);
        Args other = Args.parse(new String[] {"--rank", "0", "--peers", peers, "--straggler", "1",
                "--imbalance", "2"}, defaults);
        assertEquals(2, straggler.factor());
        assertEquals(1, other.factor());
    }

    @Test
    void runGivesThePartialPassFirstAndEndsWithAWholeOne() {
        java.util.List<String> passes = new java.util.ArrayList<>();
        Passes.of(2.5).run(10, 30, (first, end) -> passes.add(first + ".." + end));
        assertEquals(java.util.List.of("10..20", "10..30", "10..30"), passes);
        passes.clear();
        Passes.of(1).run(10, 30, (first, end) -> passes.add(first + ".." + end));
        assertEquals(java.util.List.of("10..30"), passes);
    }
}
