package dev.dprof.format;

/** Names a thread of the process: batches carry only its id. */
public record ThreadInfo(long threadId, String name) {

    public void encode(ByteSink out) {
        out.writeByte(RecordType.THREAD);
        out.writeVarLong(threadId);
        out.writeString(name);
    }

    public static ThreadInfo decode(ByteSource in) throws FormatException {
        return new ThreadInfo(in.readVarLong("thread id"), in.readString("thread name"));
    }
}
