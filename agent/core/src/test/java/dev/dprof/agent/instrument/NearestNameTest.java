package dev.dprof.agent.instrument;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class NearestNameTest {

    @Test
    void distanceCountsEditsAndSwapsOfNeighbours() {
        assertEquals(0, NearestName.distance("Leader", "leader", 5), "case does not count");
        assertEquals(1, NearestName.distance("Leeder", "Leader", 5));
        assertEquals(1, NearestName.distance("processAckk", "processAck", 5));
        assertEquals(1, NearestName.distance("porcessAck", "processAck", 5), "a swap is one edit");
        assertEquals(3, NearestName.distance("kitten", "sitting", 5));
        assertEquals(Integer.MAX_VALUE, NearestName.distance("kitten", "sitting", 2), "beyond the limit");
    }

    @Test
    void aTypoedClassFindsTheLoadedOne() {
        List<String> loaded = List.of("org.x.quorum.Learner", "org.x.quorum.Leader", "org.x.quorum.Follower",
                "java.lang.String");
        assertEquals("org.x.quorum.Leader", NearestName.className("org.x.quorum.Leeder", loaded));
        assertEquals("org.x.quorum.Leader", NearestName.className("org.x.Leader", loaded),
                "the same simple name in another package");
        assertEquals("", NearestName.className("org.x.quorum.Observer", loaded), "nothing near: no suggestion");
    }

    @Test
    void aTypoedMethodFindsTheNearestOfItsClass() {
        List<String> methods = List.of("processAck", "processRequest", "<init>", "shutdown");
        assertEquals("processAck", NearestName.method("processAckk", methods));
        assertEquals("", NearestName.method("run", methods));
    }

    @Test
    void tiesGoToTheAlphabeticallyFirst() {
        assertEquals("abd", NearestName.method("abc", List.of("abe", "abd")));
    }
}
