package dev.dprof.consolidator.synthetic;

import dev.dprof.calibrator.estimate.DriftModels;
import dev.dprof.consolidator.consolidate.ConsolidationException;
import dev.dprof.consolidator.consolidate.Consolidator;
import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.profile.ProfileException;
import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.format.FormatException;
import dev.dprof.format.profile.ProfileEvent;
import dev.dprof.format.profile.ProfileEventsReader;
import dev.dprof.synthetic.SyntheticRun;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.commons.numbers.fraction.BigFraction;

/** A synthetic run consolidated, with its profile read back into memory (small runs only). */
public record Consolidated(SyntheticRun.Result run, Path out, ProfileInfo info, Profile profile, List<ProfileEvent> events) {

    /** Consolidates {@code run} with FreeZer under the drift model into {@code out} and reads everything back. */
    public static Consolidated of(SyntheticRun.Result run, Path out, String drift)
            throws ConsolidationException, IOException, ProfileException, FormatException {
        ProfileInfo info = Consolidator.run(new Consolidator.Options(List.of(run.runDir()), List.of(run.calibrationDir()),
                out, Consolidator.Sync.FREEZER, DriftModels.parse(drift), Optional.empty()), n -> { });
        Profile profile = Profile.open(out);
        return new Consolidated(run, out, info, profile, readAll(profile));
    }

    public static List<ProfileEvent> readAll(Profile profile) throws ProfileException, IOException, FormatException {
        List<ProfileEvent> all = new ArrayList<>();
        try (ProfileEventsReader reader = profile.events()) {
            ProfileEvent e = new ProfileEvent();
            while (reader.next(e)) {
                all.add(e.copy());
            }
        }
        return all;
    }

    /** The generator's record of the profile's stream. */
    public SyntheticRun.ThreadRun thread(int stream) {
        ProfileInfo.Stream s = info.streams().get(stream);
        ProfileInfo.Process p = info.processes().get(s.process());
        return run.process(p.host(), p.pid()).threads().stream().filter(t -> t.threadId() == s.thread())
                .findFirst().orElseThrow();
    }

    /** The generator's record of the profile's process. */
    public SyntheticRun.ProcessRun process(int index) {
        ProfileInfo.Process p = info.processes().get(index);
        return run.process(p.host(), p.pid());
    }

    /** The profile's index of the generator's process. */
    public int processIndex(SyntheticRun.ProcessRun p) {
        return info.processes().stream().filter(q -> q.host().equals(p.host()) && q.pid() == p.pid())
                .findFirst().orElseThrow().index();
    }

    public String regionName(int region) {
        return region < 0 ? null : info.regions().get(region).name();
    }

    /** Parses the exact rationals of {@link ProfileInfo.Process#slopeLow()} ("n/d"). */
    public static BigFraction rational(String text) {
        int slash = text.indexOf('/');
        return BigFraction.of(new BigInteger(text.substring(0, slash)), new BigInteger(text.substring(slash + 1)));
    }
}
