package dev.dprof.format;

/**
 * One trace window of a run in statistics mode (docs/FORMAT.md, "{@code V} trace window"): from the
 * drainer's pass at {@code openTick} to its pass at {@code closeTick} the events were written as batches
 * too. Events recorded shortly before the opening pass may be in them (they were drained by it); events
 * of the closing pass are.
 */
public record TraceWindow(long openTick, long closeTick) {

    /** Encodes without making a record. */
    public static void encode(ByteSink out, long openTick, long closeTick) {
        out.writeByte(RecordType.TRACE_WINDOW);
        out.writeSignedVarLong(openTick);
        out.writeSignedVarLong(closeTick);
    }

    public static TraceWindow decode(ByteSource in) throws FormatException {
        long open = in.readSignedVarLong("trace window's opening tick");
        long close = in.readSignedVarLong("trace window's closing tick");
        if (close < open) {
            throw new FormatException("trace window closes at tick " + close + " before it opens at " + open);
        }
        return new TraceWindow(open, close);
    }
}
