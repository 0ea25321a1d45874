package dev.dprof.agent.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The identity side table against {@link IdentityHashMap} as the model. */
class IdentitySlotsTest {
    @Test
    void equalButDistinctKeysAreTwoEntries() {
        IdentitySlots t = new IdentitySlots(16);
        String a = new String("key");
        String b = new String("key");
        int ia = t.add(a);
        t.seqs[ia] = 1;
        int ib = t.add(b);
        t.seqs[ib] = 2;
        assertNotEquals(ia, ib);
        assertEquals(1, t.seqs[t.find(a)]);
        assertEquals(2, t.seqs[t.find(b)]);
        assertEquals(-1, t.find(new String("key")));
    }

    @Test
    void randomAddsAndRemovesMatchTheModel() {
        Random random = new Random(42);
        IdentitySlots t = new IdentitySlots(16);
        Map<Object, Long> model = new IdentityHashMap<>();
        List<Object> live = new ArrayList<>();
        for (int step = 0; step < 200_000; step++) {
            if (live.isEmpty() || random.nextInt(100) < 55) {
                Object k = new Object();
                long v = step;
                int i = t.add(k); // before indexing: add may replace the arrays
                t.seqs[i] = v;
                model.put(k, v);
                live.add(k);
            } else {
                Object k = live.remove(random.nextInt(live.size()));
                t.removeAt(t.find(k));
                model.remove(k);
            }
            if (step % 1000 == 0) {
                assertEquals(model.size(), t.size());
                for (Map.Entry<Object, Long> e : model.entrySet()) {
                    int i = t.find(e.getKey());
                    assertTrue(i >= 0, "lost a key at step " + step);
                    assertEquals(e.getValue(), t.seqs[i]);
                }
            }
        }
    }

    @Test
    void growsByDoublingAndShrinksWhenSparse() {
        IdentitySlots t = new IdentitySlots(16);
        List<Object> keys = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            Object k = new Object();
            t.add(k);
            keys.add(k);
        }
        assertEquals(2048, t.capacity(), "at most half full, a power of two");
        for (int i = 0; i < 990; i++) {
            t.removeAt(t.find(keys.get(i)));
        }
        t.shrinkIfSparse();
        assertEquals(64, t.capacity(), "halved while ten entries fill at most an eighth");
        for (int i = 990; i < 1000; i++) {
            assertTrue(t.find(keys.get(i)) >= 0);
        }
    }
}
