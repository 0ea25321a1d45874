package dev.dprof.consolidator.read;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Expands what a user names on the command line into process queue directories: a queue
 * directory itself, or a folder holding such directories (e.g. the agent's {@code dprof-runs/}).
 */
public final class RunDirs {
    private RunDirs() {
    }

    public static List<Path> expand(List<Path> given) throws ReadException {
        List<Path> queues = new ArrayList<>();
        for (Path p : given) {
            if (!Files.isDirectory(p)) {
                throw new ReadException(p + ": no such directory");
            }
            if (ProcessQueue.isQueue(p)) {
                queues.add(p);
                continue;
            }
            try (Stream<Path> children = Files.list(p)) {
                List<Path> found = children.filter(ProcessQueue::isQueue).sorted().toList();
                if (found.isEmpty()) {
                    throw new ReadException(p + ": holds no dprof process queue");
                }
                queues.addAll(found);
            } catch (IOException e) {
                throw new ReadException(p + ": cannot list (" + e.getMessage() + ")");
            }
        }
        return queues;
    }
}
