package dev.dprof.agent.instrument;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.dprof.agent.config.ConfigException;
import dev.dprof.agent.config.ConfigLoader;
import dev.dprof.format.WeavingSummary;
import dev.dprof.format.WeavingSummary.Reason;
import java.util.List;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.type.TypeDescription;
import org.junit.jupiter.api.Test;

/**
 * Why a YAML region matched nothing, told from what the weaver saw (classes offered, methods woven
 * or refused) and the loaded classes, with the nearest existing name.
 */
class RegionMatchesTest {
    private static final String HERE = RegionMatchesTest.class.getName();

    static final class Leader {
        void processAck(long zxid) {
        }

        void shutdown() {
        }
    }

    abstract static class Peer {
        abstract void run();
    }

    /** What the weaver does with a class its name selects: each method with a body to its region, then the class. */
    private static void weave(RegionMatches matches, Class<?> type) {
        TypeDescription t = TypeDescription.ForLoadedType.of(type);
        for (MethodDescription.InDefinedShape m : t.getDeclaredMethods()) {
            if (m.isAbstract() || m.isNative() || m.isTypeInitializer()) {
                continue;
            }
            int region = matches.select(t, m);
            if (region >= 0) {
                matches.woven(region, t, m);
            }
        }
        matches.classSeen(t);
    }

    private static RegionMatches matches(String regions) throws ConfigException {
        return new RegionMatches(ConfigLoader.parse("regions:\n" + regions, "dprof.yaml").regions(), "dprof.yaml");
    }

    private static final List<String> LOADED = List.of(HERE + "$Leader", HERE + "$Peer", "java.lang.String");

    @Test
    void eachReasonWithTheNearestName() throws ConfigException {
        RegionMatches matches = matches(""
                + "  - {name: ack, class: " + HERE + "$Leader, method: processAck}\n"
                + "  - {name: typo.class, class: " + HERE + "$Leeder, method: processAck}\n"
                + "  - {name: typo.method, class: " + HERE + "$Leader, method: processAckk}\n"
                + "  - {name: typo.descriptor, class: " + HERE + "$Leader, method: processAck, descriptor: '(I)V'}\n"
                + "  - {name: no.class, class: 'nope.**', method: run}\n"
                + "  - {name: no.method, class: " + HERE + "$Leader, method: 'zz*'}\n"
                + "  - {name: abstract, class: " + HERE + "$Peer, method: run}\n"
                + "  - {name: taken, class: '" + HERE + "$Lea*', method: processAck}\n");
        weave(matches, Leader.class);
        weave(matches, Peer.class);
        weave(matches, Leader.class); // a retransformation counts once
        WeavingSummary summary = matches.summary(LOADED);

        List<WeavingSummary.Region> r = summary.regions();
        assertEquals(Reason.MATCHED, r.get(0).reason());
        assertEquals(1, r.get(0).wovenMethods());
        assertEquals(List.of(Reason.NO_CLASS, Reason.NO_METHOD, Reason.DESCRIPTOR, Reason.NO_CLASS_MATCHED,
                Reason.NO_METHOD_MATCHED, Reason.NOT_WOVEN, Reason.NOT_WOVEN),
                summary.unmatched().stream().map(WeavingSummary.Region::reason).toList());
        assertEquals(HERE + "$Leader", r.get(1).nearest());
        assertEquals("processAck", r.get(2).nearest());
        assertEquals("processAck(J)V", r.get(3).nearest());
        assertEquals("", r.get(4).nearest());
        assertEquals("run()V is abstract: only a method with a body can be woven", r.get(6).detail());
        assertEquals("processAck(J)V is taken by region 'ack' (dprof.yaml:2), which comes first", r.get(7).detail());
        assertEquals("woven 1 method in 1 class for 1 of 8 configured regions", summary.wovenLine());
        assertEquals("region 'typo.method' (dprof.yaml:4) " + HERE + "$Leader#processAckk: the class has no such"
                + " method (nearest: processAck)", r.get(2).describe());
    }

    @Test
    void aClassLoadedButNeverOfferedIsNotCalledMissing() throws ConfigException {
        RegionMatches matches = matches("  - {name: s, class: java.lang.String, method: length}\n");
        WeavingSummary.Region r = matches.summary(LOADED).regions().get(0);
        assertEquals(Reason.NOT_WOVEN, r.reason());
        assertEquals("the class was loaded but not offered for weaving: excluded, one of dprof's own, or not"
                + " modifiable", r.detail());
    }

    @Test
    void aRefusedMethodSaysWhy() throws ConfigException {
        RegionMatches matches = matches("  - {name: ack, class: " + HERE + "$Leader, method: processAck}\n");
        TypeDescription t = TypeDescription.ForLoadedType.of(Leader.class);
        MethodDescription m = t.getDeclaredMethods().filter(
                net.bytebuddy.matcher.ElementMatchers.named("processAck")).getOnly();
        matches.refused(0, t, m, "system property rank is not set");
        matches.classSeen(t);
        WeavingSummary.Region r = matches.summary(LOADED).regions().get(0);
        assertEquals(Reason.NOT_WOVEN, r.reason());
        assertEquals(HERE + "$Leader#processAck(J)V: system property rank is not set", r.detail());
    }

    @Test
    void aRegionWovenInOneClassIsMatchedWhateverOtherClassesLack() throws ConfigException {
        RegionMatches matches = matches("  - {name: any, class: '" + HERE + "$*', method: shutdown}\n");
        weave(matches, Peer.class);
        weave(matches, Leader.class);
        WeavingSummary summary = matches.summary(LOADED);
        assertEquals(List.of(), summary.unmatched());
        assertEquals("woven 1 method in 1 class for 1 of 1 configured regions", summary.wovenLine());
    }
}
