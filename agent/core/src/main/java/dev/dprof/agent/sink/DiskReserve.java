package dev.dprof.agent.sink;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The free space the run's files never use (docs/CONFIG.md, {@code diskReserveMiB}): the queue, the
 * ring files and the host's records share it. A class of its own, without Chronicle, so that a host
 * whose drainer runs in another process computes it without loading the queue's classes.
 */
public final class DiskReserve {
    /** The smallest reserve: the end record and Chronicle's own pages must fit after a refusal. */
    static final long MIN_RESERVE_BYTES = 8L << 20;
    /** The largest default reserve, and the default's share of the file system. */
    static final long MAX_DEFAULT_RESERVE_BYTES = 256L << 20;
    static final int DEFAULT_RESERVE_PERCENT = 5;

    private DiskReserve() {
    }

    /** The default reserve of the file system {@code dir} is on. */
    public static long of(Path dir) throws IOException {
        return of(Files.getFileStore(dir));
    }

    /** The default reserve of {@code store}. */
    static long of(FileStore store) throws IOException {
        return ofTotal(store.getTotalSpace());
    }

    /** 5% of a file system of {@code totalBytes}, at most 256 MiB, at least {@link #MIN_RESERVE_BYTES}. */
    static long ofTotal(long totalBytes) {
        return Math.max(MIN_RESERVE_BYTES, Math.min(MAX_DEFAULT_RESERVE_BYTES, totalBytes / 100 * DEFAULT_RESERVE_PERCENT));
    }
}
