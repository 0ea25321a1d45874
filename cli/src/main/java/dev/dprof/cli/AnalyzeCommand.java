package dev.dprof.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.dprof.consolidator.analysis.straggler.StragglerScore;
import dev.dprof.consolidator.profile.Profile;
import dev.dprof.consolidator.profile.ProfileException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Parameters;

/** {@code dprof analyze PROFILE <analysis>}: analyses of a consolidated profile, as bounds. */
@Command(name = "analyze", mixinStandardHelpOptions = true, description = "Analyses of a consolidated profile.",
        subcommands = {AnalyzeCommand.Straggler.class})
public final class AnalyzeCommand {
    @Parameters(index = "0", paramLabel = "PROFILE", description = "a folder written by 'dprof consolidate'")
    Path profile;

    Profile open() throws CliException {
        try {
            return Profile.open(profile);
        } catch (ProfileException e) {
            throw new CliException(e.getMessage());
        }
    }

    @Command(name = "straggler", mixinStandardHelpOptions = true,
            description = "dCSP straggler score: share of the span in which a thread (process) is in the body region "
                    + "while all others are in the barrier region, as sound [lo, hi].")
    static final class Straggler implements Callable<Integer> {
        @ParentCommand
        AnalyzeCommand parent;

        @Option(names = "--body", required = true, paramLabel = "REGION", description = "the work region")
        String body;

        @Option(names = "--barrier", required = true, paramLabel = "REGION", description = "the waiting region")
        String barrier;

        @Option(names = "--json", description = "print JSON")
        boolean json;

        @Override
        public Integer call() throws Exception {
            StragglerScore.Result r;
            try {
                r = StragglerScore.compute(parent.open(), body, barrier);
            } catch (ProfileException e) {
                throw new CliException(e.getMessage());
            }
            if (json) {
                System.out.println(Json.MAPPER.writeValueAsString(toJson(r)));
                return 0;
            }
            System.out.printf(Locale.ROOT, "straggler scores (body %s, barrier %s; span %.3f–%.3f s; %s; %s)%n",
                    r.body(), r.barrier(), r.spanSecondsMin(), r.spanSecondsMax(), r.quality(), r.assumption());
            System.out.printf(Locale.ROOT, "%-30s %10s %10s %10s%n", "process", "lo", "hi", "truth");
            for (StragglerScore.ProcessScore p : r.processes()) {
                System.out.printf(Locale.ROOT, "%-30s %10.4f %10.4f %10s%n", p.label(), p.lo(), p.hi(), truth(p.truth()));
            }
            System.out.printf(Locale.ROOT, "%-30s %10s %10s %10s%n", "thread", "lo", "hi", "truth");
            for (StragglerScore.ThreadScore t : r.threads()) {
                System.out.printf(Locale.ROOT, "%-30s %10.4f %10.4f %10s%n", t.process() + "/" + t.thread(), t.lo(),
                        t.hi(), truth(t.truth()));
            }
            return 0;
        }

        private static String truth(Double t) {
            return t == null ? "-" : String.format(Locale.ROOT, "%.4f", t);
        }

        static ObjectNode toJson(StragglerScore.Result r) {
            ObjectNode root = Json.MAPPER.createObjectNode();
            ArrayNode threads = root.putArray("threads");
            for (StragglerScore.ThreadScore t : r.threads()) {
                ObjectNode n = threads.addObject().put("process", t.process()).put("thread", t.thread())
                        .put("lo", t.lo()).put("hi", t.hi());
                if (t.truth() != null) {
                    n.put("truth", t.truth());
                }
            }
            ArrayNode processes = root.putArray("processes");
            for (StragglerScore.ProcessScore p : r.processes()) {
                ObjectNode n = processes.addObject().put("process", p.process()).put("label", p.label())
                        .put("lo", p.lo()).put("hi", p.hi());
                if (p.truth() != null) {
                    n.put("truth", p.truth());
                }
            }
            root.put("quality", r.quality());
            root.put("assumption", r.assumption());
            root.put("spanSecondsMin", r.spanSecondsMin());
            root.put("spanSecondsMax", r.spanSecondsMax());
            return root;
        }
    }
}
