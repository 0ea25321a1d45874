package dev.dprof.agent.instrument;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.dprof.agent.bootstrap.Probes;
import dev.dprof.format.CollectiveFlavour;
import dev.dprof.format.CollectiveShape;
import dev.dprof.format.EventCodes;
import org.junit.jupiter.api.Test;

/**
 * The probe packs a collective's shape without the format module (the bootstrap class path has
 * none); what it writes must be what the reader's {@link CollectiveShape} reads.
 */
class CollectiveShapeProbeTest {

    @Test
    void theProbesPackingIsTheFormats() {
        for (CollectiveFlavour f : CollectiveFlavour.values()) {
            for (long[] v : new long[][] {{1, 0, 0}, {4, 3, 1}, {EventCodes.SHAPE_FIELD_MAX, 7, EventCodes.SHAPE_FIELD_MAX}}) {
                assertEquals(CollectiveShape.pack(f.code, v[0], v[1], v[2]), Probes.collectiveShape(f.code, v[0], v[1], v[2]));
                assertEquals(new CollectiveShape(f, v[0], v[1], v[2]),
                        CollectiveShape.unpack(Probes.collectiveShape(f.code, v[0], v[1], v[2])));
            }
        }
        assertEquals(CollectiveShape.pack(EventCodes.FLAVOUR_SCAN, 4, -1, 0), Probes.collectiveShape(EventCodes.FLAVOUR_SCAN, 4, -1, 0));
        assertEquals(null, CollectiveShape.unpack(Probes.collectiveShape(EventCodes.FLAVOUR_ONE_TO_N, 4, 0,
                EventCodes.SHAPE_FIELD_MAX + 1)).flavour());
    }

    @Test
    void theApisFlavourNamesAreTheConfigurations() {
        for (String name : CollectiveFlavour.NAMES) {
            assertEquals(CollectiveFlavour.ofName(name).code, Probes.flavourCode(name), name);
        }
        assertEquals(EventCodes.FLAVOUR_INVALID, Probes.flavourCode("broadcast"));
        assertEquals(EventCodes.FLAVOUR_INVALID, Probes.flavourCode(null));
    }
}
