package dev.dprof.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Where {@link ZooKeeperIT}'s summary places a prediction's bound against the measured gain's bootstrap interval. */
class PredictionInIntervalTest {
    private static final double[] INTERVAL = {-0.04, 0.22};

    @Test
    void aBoundIsInsideAcrossTheEdgeBelowOrAboveTheInterval() {
        assertEquals("inside", ZooKeeperIT.relation(new double[] {0.12, 0.13}, INTERVAL));
        assertEquals("inside", ZooKeeperIT.relation(new double[] {-0.04, 0.22}, INTERVAL));
        assertEquals("across the edge of", ZooKeeperIT.relation(new double[] {0.21, 0.23}, INTERVAL));
        assertEquals("across the edge of", ZooKeeperIT.relation(new double[] {-0.05, 0.30}, INTERVAL));
        assertEquals("below", ZooKeeperIT.relation(new double[] {-0.10, -0.05}, INTERVAL));
        assertEquals("above", ZooKeeperIT.relation(new double[] {0.23, 0.24}, INTERVAL));
    }
}
