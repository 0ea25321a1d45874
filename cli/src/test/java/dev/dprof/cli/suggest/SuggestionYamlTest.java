package dev.dprof.cli.suggest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.agent.config.AgentConfig;
import dev.dprof.agent.config.ConfigLoader;
import dev.dprof.agent.config.RegionKind;
import dev.dprof.agent.config.RegionSpec;
import dev.dprof.cli.suggest.Tally.Suggestion;
import java.lang.reflect.Modifier;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The written YAML is what the agent's own {@link ConfigLoader} reads back, region for region. */
class SuggestionYamlTest {

    @Test
    void everyRegionIsReadBackByTheAgentsLoaderAsThePlainRegionOfExactlyThatMethod() throws Exception {
        Frame assign = Frame.of("com.example.Worker$Job", "assign", "(I)V");
        Frame assignLong = Frame.of("com.example.Worker$Job", "assign", "(J)V");
        Frame otherAssign = Frame.of("org.other.Worker$Job", "assign", "(I)V");
        Frame constructor = Frame.of("com.example.Worker$Job", "<init>", "(Ljava/lang/String;[I)V");
        Frame lambda = new Frame("com.example.Worker", "lambda$run$0", "()V", Modifier.PRIVATE | Frame.SYNTHETIC,
                false, false);
        List<Frame> frames = List.of(assign, otherAssign, assignLong, constructor, lambda);
        String yaml = SuggestionYaml.write(List.of("header line"), frames.stream()
                .map(f -> new Suggestion(f, List.of("why " + f.methodName()))).toList());

        AgentConfig config = ConfigLoader.parse(yaml, "suggested.yaml");
        List<RegionSpec> regions = config.regions();
        assertEquals(List.of("Worker$Job#assign", "org.other.Worker$Job#assign", "Worker$Job#assign(J)V",
                "Worker$Job#<init>", "Worker#lambda$run$0"), regions.stream().map(RegionSpec::name).toList());
        for (int i = 0; i < frames.size(); i++) {
            RegionSpec r = regions.get(i);
            Frame f = frames.get(i);
            assertEquals(f.className(), r.classPattern(), r::toString);
            assertEquals(f.methodName(), r.methodPattern(), r::toString);
            assertEquals(f.descriptor(), r.descriptor().orElseThrow(), r::toString);
            assertEquals(RegionKind.PLAIN, r.kind(), r::toString);
        }
        assertEquals(AgentConfig.ALL_HANDOFFS, config.handoffs(), "handoffs: auto, written out");
        assertTrue(yaml.startsWith("# header line\n"), yaml);
        assertTrue(yaml.contains("  # why <init>\n  - name: \"Worker$Job#<init>\"\n"), yaml);
        assertTrue(yaml.contains("  # the body of a lambda"), yaml);
    }

    @Test
    void noSuggestionIsAnEmptyButValidFileAndAHeaderCannotBreakOutOfItsComment() throws Exception {
        String yaml = SuggestionYaml.write(List.of("from 'sh -c \"x\nregions: 7\"'"), List.of());
        AgentConfig config = ConfigLoader.parse(yaml, "empty.yaml");
        assertEquals(List.of(), config.regions());
        assertTrue(yaml.startsWith("# from 'sh -c \"x regions: 7\"'\n"), yaml);
    }

    @Test
    void quotingEscapesWhatYamlWouldReadOtherwise() {
        assertEquals("\"a\\\"b\\\\c\\u0009\"", SuggestionYaml.quote("a\"b\\c\t"));
    }
}
