package dev.dprof.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The one JSON writer of the command line. */
final class Json {
    static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private Json() {
    }

    static void write(Path file, JsonNode node) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        MAPPER.writeValue(file.toFile(), NoBound.finite(node));
    }

    /** {@code node} as text, every number that is not finite written as null ({@link NoBound}). */
    static String text(JsonNode node) throws com.fasterxml.jackson.core.JsonProcessingException {
        return MAPPER.writeValueAsString(NoBound.finite(node));
    }
}
