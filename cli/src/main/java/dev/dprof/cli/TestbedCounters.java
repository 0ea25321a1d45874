package dev.dprof.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToLongFunction;

/**
 * The counters a {@code calibrate serve} or {@code join} hands to the test bed when it exits
 * ({@code --counters FILE}): one {@code name=value} line per counter, all of them, zeros included,
 * so the test bed can add up rejected packets without parsing log lines. Written to a temporary
 * name and moved into place, so a reader never sees half a file.
 */
final class TestbedCounters {
    private TestbedCounters() {
    }

    /** Writes every counter of {@code type}, read through {@code value}. */
    static <E extends Enum<E>> void write(Path file, Class<E> type, ToLongFunction<E> value) {
        StringBuilder sb = new StringBuilder();
        for (E name : type.getEnumConstants()) {
            sb.append(name.name().toLowerCase(Locale.ROOT)).append('=').append(value.applyAsLong(name)).append('\n');
        }
        try {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
            Files.writeString(tmp, sb, StandardCharsets.UTF_8);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            CalibrateCommand.err("cannot write the counters to " + file + " (" + e.getMessage() + ")");
        }
    }

    /** Reads a counter file; empty if the process never wrote one (it was killed). */
    static Map<String, Long> read(Path file) throws IOException {
        Map<String, Long> counts = new LinkedHashMap<>();
        if (!Files.exists(file)) {
            return counts;
        }
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                try {
                    counts.put(line.substring(0, eq), Long.parseLong(line.substring(eq + 1).trim()));
                } catch (NumberFormatException e) {
                    throw new IOException(file + ": bad counter line '" + line + "'");
                }
            }
        }
        return counts;
    }
}
