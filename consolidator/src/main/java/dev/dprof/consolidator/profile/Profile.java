package dev.dprof.consolidator.profile;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.dprof.format.FormatException;
import dev.dprof.format.profile.ProfileEventsReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A consolidated profile folder: {@code profile.json}, {@code events.bin}, and the calibration files
 * it was consolidated with ({@code calibration/}, absent in a profile written before it existed).
 */
public final class Profile {
    public static final String INFO = "profile.json";
    public static final String EVENTS = "events.bin";
    /** The folder holding a copy of every {@code .cal} file used, for the point baselines' calibration exchanges. */
    public static final String CALIBRATION = "calibration";
    static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    private final Path dir;
    private final ProfileInfo info;

    private Profile(Path dir, ProfileInfo info) {
        this.dir = dir;
        this.info = info;
    }

    public static Profile open(Path dir) throws ProfileException {
        Path json = dir.resolve(INFO);
        if (!Files.isRegularFile(json)) {
            throw new ProfileException(dir + ": not a consolidated profile (no " + INFO + ")");
        }
        ProfileInfo info;
        try {
            info = MAPPER.readValue(json.toFile(), ProfileInfo.class);
        } catch (IOException e) {
            throw new ProfileException(json + ": unreadable (" + e.getMessage().lines().findFirst().orElse("") + ")");
        }
        if (info.formatVersion() != ProfileInfo.FORMAT_VERSION) {
            throw new ProfileException(json + ": unknown profile format version " + info.formatVersion()
                    + " (this build reads " + ProfileInfo.FORMAT_VERSION + ")");
        }
        return new Profile(dir, info);
    }

    public static void writeInfo(Path dir, ProfileInfo info) throws IOException {
        MAPPER.writeValue(dir.resolve(INFO).toFile(), info);
    }

    public Path dir() {
        return dir;
    }

    public ProfileInfo info() {
        return info;
    }

    /** A fresh stream over the events in their causal order. */
    public ProfileEventsReader events() throws ProfileException {
        try {
            return new ProfileEventsReader(dir.resolve(EVENTS), info.truth());
        } catch (IOException | FormatException e) {
            throw new ProfileException(dir.resolve(EVENTS) + ": " + e.getMessage());
        }
    }
}
