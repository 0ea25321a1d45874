package dev.dprof.it.app.quorum;

/**
 * {@code Leader ACKS}: acknowledges {@code ACKS} proposals and prints {@code acked=ACKS zxid=…}; the
 * class and method names are those a user mistypes in the YAML of {@code TypoIT}.
 */
public final class Leader {
    private long lastZxid;

    public static void main(String[] args) {
        int acks = Integer.parseInt(args[0]);
        Leader leader = new Leader();
        for (int i = 1; i <= acks; i++) {
            leader.processAck(i);
        }
        System.out.println("acked=" + acks + " zxid=" + leader.lastZxid);
    }

    void processAck(long zxid) {
        lastZxid = Math.max(lastZxid, zxid);
    }
}
