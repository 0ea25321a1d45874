package dev.dprof.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.dprof.consolidator.json.ResultJson;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The one JSON writer of the command line: indented, every number that is not finite written as
 * null ({@link ResultJson#finite}, the analyses' forms already are; this covers what a command adds).
 */
final class Json {
    static final ObjectMapper MAPPER = ResultJson.MAPPER.copy().enable(SerializationFeature.INDENT_OUTPUT);

    private Json() {
    }

    static void write(Path file, JsonNode node) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        MAPPER.writeValue(file.toFile(), ResultJson.finite(node));
    }

    /** {@code node} as text. */
    static String text(JsonNode node) throws JsonProcessingException {
        return MAPPER.writeValueAsString(ResultJson.finite(node));
    }
}
