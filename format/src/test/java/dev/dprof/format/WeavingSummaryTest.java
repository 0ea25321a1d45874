package dev.dprof.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

class WeavingSummaryTest {

    private static final WeavingSummary.Region WOVEN = new WeavingSummary.Region("compute", "dprof.yaml:3",
            "org.x.Worker", "compute", "", 2, WeavingSummary.Reason.MATCHED, "", "");
    private static final WeavingSummary.Region TYPO = new WeavingSummary.Region("ack", "dprof.yaml:7",
            "org.x.quorum.Leeder", "processAck", "", 0, WeavingSummary.Reason.NO_CLASS, "org.x.quorum.Leader", "");
    private static final WeavingSummary.Region DESCRIPTOR = new WeavingSummary.Region("send", "dprof.yaml:11",
            "org.x.Net", "send", "(I)V", 0, WeavingSummary.Reason.DESCRIPTOR, "send(J)V", "");

    @Test
    void roundTripsEveryField() throws FormatException {
        WeavingSummary summary = new WeavingSummary(3, 2, 1, List.of(WOVEN, TYPO, DESCRIPTOR));
        ByteSink sink = new ByteSink(8);
        summary.encode(sink);
        ByteSource in = new ByteSource(ByteBuffer.wrap(sink.toByteArray()));
        assertEquals(RecordType.WEAVING, in.readByte("type"));
        assertEquals(summary, WeavingSummary.decode(in));
    }

    @Test
    void namesTheUnmatchedRegionsWithReasonAndNearestName() {
        WeavingSummary summary = new WeavingSummary(3, 2, 1, List.of(WOVEN, TYPO, DESCRIPTOR));
        assertEquals(List.of(TYPO, DESCRIPTOR), summary.unmatched());
        assertEquals("region 'ack' (dprof.yaml:7) org.x.quorum.Leeder#processAck: no class by that name was loaded"
                + " (nearest: org.x.quorum.Leader)", TYPO.describe());
        assertEquals("region 'send' (dprof.yaml:11) org.x.Net#send(I)V: the descriptor did not match"
                + " (nearest: send(J)V)", DESCRIPTOR.describe());
        assertEquals("woven 2 methods in 1 class for 1 of 3 configured regions", summary.wovenLine());
    }

    @Test
    void anUnknownReasonCodeIsAFormatError() {
        ByteSink sink = new ByteSink(8);
        new WeavingSummary(1, 0, 0, List.of(TYPO)).encode(sink);
        byte[] bytes = sink.toByteArray();
        // the reason byte follows the region's five strings and its woven count (0): find it after "processAck"
        int at = new String(bytes, java.nio.charset.StandardCharsets.ISO_8859_1).indexOf("processAck") + 10 + 1 + 1;
        bytes[at] = 99;
        ByteSource in = new ByteSource(ByteBuffer.wrap(bytes));
        assertThrows(FormatException.class, () -> {
            in.readByte("type");
            WeavingSummary.decode(in);
        });
    }
}
