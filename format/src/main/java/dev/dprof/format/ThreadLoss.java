package dev.dprof.format;

/**
 * How many events one thread's ring has dropped so far because it was full (docs/FORMAT.md, "{@code L}
 * thread loss"): written by the drainer after a batch of a thread whose count grew, so that a process
 * killed before its end record still says what it lost. The count is cumulative; a reader keeps
 * each thread's largest.
 *
 * @param lostSoFar events the thread's ring dropped since it was made
 */
public record ThreadLoss(long threadId, long lostSoFar) {

    /** Encodes without making a record: the drainer writes these on its hot path. */
    public static void encode(ByteSink out, long threadId, long lostSoFar) {
        out.writeByte(RecordType.LOSS);
        out.writeVarLong(threadId);
        out.writeVarLong(lostSoFar);
    }

    public static ThreadLoss decode(ByteSource in) throws FormatException {
        long thread = in.readVarLong("thread id");
        long lost = in.readVarLong("lost so far");
        if (lost < 0) {
            throw new FormatException("negative loss " + lost + " of thread " + thread);
        }
        return new ThreadLoss(thread, lost);
    }
}
