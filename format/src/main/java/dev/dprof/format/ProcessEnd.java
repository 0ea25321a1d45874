package dev.dprof.format;

/**
 * The last record of a process that ended normally. Its absence means the process was killed:
 * the reader then reports the regions still open instead of inventing exits.
 *
 * @param lostEvents events the probes dropped (full buffers, a full disk, a failing probe)
 * @param reason     why events were lost, or empty
 */
public record ProcessEnd(long endTick, long eventsWritten, long lostEvents, String reason) {

    public void encode(ByteSink out) {
        out.writeByte(RecordType.END);
        out.writeVarLong(endTick);
        out.writeVarLong(eventsWritten);
        out.writeVarLong(lostEvents);
        out.writeString(reason);
    }

    public static ProcessEnd decode(ByteSource in) throws FormatException {
        return new ProcessEnd(in.readVarLong("end tick"), in.readVarLong("events written"),
                in.readVarLong("lost events"), in.readString("loss reason"));
    }
}
