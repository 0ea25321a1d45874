package dev.dprof.consolidator.consolidate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.format.FormatException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** The prefetcher hands each stream its batches in order, from a fixed few buffers, and reports failures. */
class BatchPrefetcherTest {

    /** Batch b of a stream holds b + 1 events whose ticks are b·1000 + i; a failure after {@code failAfter}. */
    private static final class Numbered implements BatchPrefetcher.Source {
        final int batches;
        final int failAfter;
        int next;
        final AtomicBoolean closed = new AtomicBoolean();
        volatile Thread calledFrom;

        Numbered(int batches, int failAfter) {
            this.batches = batches;
            this.failAfter = failAfter;
        }

        @Override
        public boolean fill(DecodedBatch into) throws FormatException {
            calledFrom = Thread.currentThread();
            if (next == failAfter) {
                throw new FormatException("batch " + next + " is corrupt");
            }
            if (next == batches) {
                return false;
            }
            int n = next % 300 + 1;
            into.ensureCapacity(n);
            for (int i = 0; i < n; i++) {
                into.tick[i] = next * 1000L + i;
            }
            into.size = n;
            next++;
            return true;
        }

        @Override
        public void close() {
            closed.set(true);
        }
    }

    @Test
    void everyStreamGetsItsBatchesInOrderFromAFewBuffers() {
        List<Numbered> sources = new ArrayList<>();
        for (int s = 0; s < 7; s++) {
            sources.add(new Numbered(200 + 37 * s, -1));
        }
        BatchPrefetcher prefetcher = new BatchPrefetcher(sources);
        DecodedBatch[] current = new DecodedBatch[sources.size()];
        int[] seen = new int[sources.size()];
        List<Set<DecodedBatch>> buffers = new ArrayList<>();
        sources.forEach(x -> buffers.add(Collections.newSetFromMap(new IdentityHashMap<>())));
        boolean[] ended = new boolean[sources.size()];
        int open = sources.size();
        // Uneven consumption, as a merge's: stream s takes s + 1 batches per round.
        while (open > 0) {
            for (int s = 0; s < sources.size(); s++) {
                for (int take = 0; take <= s && !ended[s]; take++) {
                    DecodedBatch b = prefetcher.next(s, current[s]);
                    current[s] = b;
                    buffers.get(s).add(b);
                    assertEquals(s, b.stream);
                    if (b.end) {
                        assertNull(b.failure);
                        assertEquals(sources.get(s).batches, seen[s], "stream " + s + " ends after its last batch");
                        ended[s] = true;
                        open--;
                        break;
                    }
                    assertEquals(seen[s] % 300 + 1, b.size);
                    for (int i = 0; i < b.size; i++) {
                        assertEquals(seen[s] * 1000L + i, b.tick[i]);
                    }
                    seen[s]++;
                }
            }
        }
        prefetcher.close();
        for (int s = 0; s < sources.size(); s++) {
            assertTrue(buffers.get(s).size() <= BatchPrefetcher.BATCHES_PER_STREAM, "buffers of stream " + s);
            assertTrue(sources.get(s).closed.get(), "source " + s + " closed");
            assertNotNull(sources.get(s).calledFrom);
            assertFalse(sources.get(s).calledFrom == Thread.currentThread(), "read on the prefetching thread");
        }
    }

    @Test
    void aCorruptBatchEndsItsStreamWithTheFailure() {
        Numbered bad = new Numbered(50, 3);
        Numbered good = new Numbered(5, -1);
        BatchPrefetcher prefetcher = new BatchPrefetcher(List.of(bad, good));
        DecodedBatch b = null;
        for (int i = 0; i < 3; i++) {
            b = prefetcher.next(0, b);
            assertFalse(b.end);
        }
        b = prefetcher.next(0, b);
        assertTrue(b.end);
        assertEquals("batch 3 is corrupt", b.failure.getMessage());
        DecodedBatch g = null;
        for (int i = 0; i < 5; i++) {
            g = prefetcher.next(1, g);
            assertFalse(g.end);
        }
        assertTrue(prefetcher.next(1, g).end);
        prefetcher.close();
        assertTrue(bad.closed.get() && good.closed.get());
    }

    @Test
    void closingEarlyStopsTheThreadAndClosesTheSources() {
        Numbered endless = new Numbered(Integer.MAX_VALUE, -1);
        BatchPrefetcher prefetcher = new BatchPrefetcher(List.of(endless));
        DecodedBatch first = prefetcher.next(0, null);
        assertFalse(first.end);
        prefetcher.close();
        assertTrue(endless.closed.get());
    }
}
