package dev.dprof.agent.config;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Objects;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.nodes.Node;

/**
 * Reads the agent's YAML configuration file (format: {@code docs/CONFIG.md}) into an {@link AgentConfig}.
 *
 * <p>Every problem, whatever it is, comes out as one {@link ConfigException} whose message is one line naming the
 * file and, where the problem has a place, the line: {@code dprof.yaml:12: regions[1].kind: unknown kind 'sned'
 * (expected one of plain, send, receive, barrier, collective, progress, handoff)}. No other exception escapes for
 * any file content.
 *
 * <p>The file is read with SnakeYAML's node API ({@link Yaml#compose}), never constructed into objects, so no tag
 * can instantiate a class. Anchors and aliases work (and {@code <<} merge keys), within limits: at most
 * {@value #MAX_COLLECTION_ALIASES} aliases to lists or mappings, no alias inside the anchor it refers to, at most
 * {@value #MAX_DEPTH} levels of nesting, at most {@value #MAX_CHARS} characters.
 */
public final class ConfigLoader {

    /** The largest file accepted, in bytes (by {@link #load}) or characters (by {@link #parse}). */
    public static final int MAX_CHARS = 1 << 20;
    /** The most aliases to lists or mappings a file may use (guards against "billion laughs" files). */
    public static final int MAX_COLLECTION_ALIASES = 64;
    /** The deepest nesting of lists and mappings a file may have (the format needs 4). */
    public static final int MAX_DEPTH = 16;

    private ConfigLoader() {
    }

    /**
     * Reads and checks the configuration file {@code file}. An empty file (or one holding only comments) gives
     * {@link AgentConfig#defaults()}. Messages name the file as {@code file.toString()}.
     *
     * @throws ConfigException for a missing, unreadable, too large or invalid file
     */
    public static AgentConfig load(Path file) throws ConfigException {
        Objects.requireNonNull(file, "file");
        String source = file.toString();
        if (Files.isDirectory(file)) {
            throw new ConfigException(source + ": cannot read config file: is a directory");
        }
        byte[] bytes;
        try {
            long size = Files.size(file);
            if (size > MAX_CHARS) {
                throw new ConfigException(source + ": config file is too large (" + size + " bytes, limit "
                        + MAX_CHARS + ")");
            }
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new ConfigException(source + ": config file not found", e);
        } catch (AccessDeniedException e) {
            throw new ConfigException(source + ": cannot read config file: permission denied", e);
        } catch (IOException | SecurityException e) {
            throw new ConfigException(source + ": cannot read config file: " + e, e);
        }
        if (bytes.length > MAX_CHARS) {
            throw new ConfigException(source + ": config file is too large (" + bytes.length + " bytes, limit "
                    + MAX_CHARS + ")");
        }
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw new ConfigException(source + ": cannot read config file: not valid UTF-8 text", e);
        }
        return parse(text, source);
    }

    /**
     * Checks the YAML text {@code yaml}; messages name it {@code sourceName}. Empty text (or only comments) gives
     * {@link AgentConfig#defaults()}.
     *
     * @throws ConfigException for invalid text
     */
    public static AgentConfig parse(String yaml, String sourceName) throws ConfigException {
        Objects.requireNonNull(yaml, "yaml");
        Objects.requireNonNull(sourceName, "sourceName");
        if (yaml.length() > MAX_CHARS) {
            throw new ConfigException(sourceName + ": config file is too large (" + yaml.length()
                    + " characters, limit " + MAX_CHARS + ")");
        }
        if (yaml.startsWith("\uFEFF")) {
            yaml = yaml.substring(1);
        }
        Node root = YamlComposer.compose(yaml, sourceName);
        if (root == null || YamlNodes.isNull(root)) {
            return AgentConfig.defaults();
        }
        try {
            return new TopLevelReader(new YamlNodes(sourceName)).read(root);
        } catch (RuntimeException e) {
            // Not expected for any input; the agent must still never crash the host because of its configuration.
            throw new ConfigException(sourceName + ": internal error while reading the configuration: " + e, e);
        }
    }
}
