package dev.dprof.consolidator.read;

import java.nio.file.Path;

/**
 * A process whose queue cannot be opened, left out of every command, with what its files say it
 * recorded ({@link ProcessCensus}): the one source of the damage line {@code stats},
 * {@code consolidate} and the report print, and of {@code profile.json}'s {@code leftOut} entry.
 *
 * @param queue  the process's queue directory (its name says host and pid)
 * @param file   the file whose damage keeps the queue shut: the one {@link ReadException} names, else
 *               the queue's first {@code .cq4} (Chronicle's header and the process header live there),
 *               else the directory
 * @param reason why the queue cannot be opened, in words
 * @param count  the events it recorded, all lost
 */
public record LeftOutProcess(Path queue, Path file, String reason, ProcessCensus.Count count) {
    /** The process of {@code queue}, which {@code failure} keeps from being opened, counted by its files. */
    public static LeftOutProcess of(Path queue, ReadException failure) {
        String message = failure.getMessage();
        String prefix = queue + ": ";
        String reason = message.startsWith(prefix) ? message.substring(prefix.length()) : message;
        Path file = failure.file().orElseGet(() -> QueueFiles.first(queue).orElse(queue));
        return new LeftOutProcess(queue, file, reason, ProcessCensus.of(queue));
    }

    /** The damage line every command prints for it. */
    public String line() {
        return Damage.line(queue + ": " + reason + "; the process is left out, " + count.leftOut());
    }
}
