package dev.dprof.cli;

import dev.dprof.consolidator.analysis.causal.WhatIf;
import dev.dprof.consolidator.analysis.causal.WhatIfJson;
import dev.dprof.consolidator.profile.ProfileException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/** {@code dprof analyze PROFILE whatif}: dCOZ, the predicted program speedup of a faster region. */
@Command(name = "whatif", mixinStandardHelpOptions = true,
        description = "dCOZ: the program speedup 1 − T_new/T_old if every instance of a region got faster by a "
                + "fraction, causality respected, as sound [lo, hi]; with no region, every region ranked by its gain.")
final class WhatIfCommand implements Callable<Integer> {
    @ParentCommand
    AnalyzeCommand parent;

    @Option(names = "--region", paramLabel = "REGION",
            description = "the region to speed up; REGION[ID] selects one dynamic instance (e.g. one rank's)")
    String region;

    @Option(names = "--speedup", paramLabel = "S", defaultValue = "0.5", converter = Fraction.class,
            description = "how much of the region's time goes: a fraction or a percentage (0.4, 40%%); default 50%%")
    double speedup;

    @Option(names = "--sweep", description = "the Coz curve for --region: speedups 0%%, 10%%, … 100%%")
    boolean sweep;

    @Option(names = "--from", paramLabel = "REGION",
            description = "the span starts at each thread's first enter of this region (default: its first event)")
    String from;

    @Option(names = "--to", paramLabel = "REGION",
            description = "the span ends at each thread's last exit of this region (default: its last event)")
    String to;

    @Option(names = "--latency", paramLabel = "REGION",
            description = "also the latency speedup of this region's instances, taken as transactions (Coz)")
    String latency;

    @Option(names = "--top", paramLabel = "N", defaultValue = "10", description = "regions listed without --region")
    int top;

    @Option(names = "--json", description = "print JSON")
    boolean json;

    /** {@code 0.4} or {@code 40%}. */
    static final class Fraction implements ITypeConverter<Double> {
        @Override
        public Double convert(String value) {
            String v = value.trim();
            double f = v.endsWith("%") ? Double.parseDouble(v.substring(0, v.length() - 1).trim()) / 100
                    : Double.parseDouble(v);
            if (!(f >= 0 && f <= 1)) {
                throw new IllegalArgumentException("a speedup must be in [0, 1] (or 0%..100%), got " + value);
            }
            return f;
        }
    }

    @Override
    public Integer call() throws Exception {
        if ((sweep || latency != null) && region == null) {
            throw new CliException((sweep ? "--sweep" : "--latency") + " needs --region");
        }
        WhatIf.Result r;
        try {
            if (region == null) {
                r = WhatIf.rank(parent.open(), speedup, from, to);
            } else {
                List<Double> fractions = new ArrayList<>();
                if (sweep) {
                    for (int i = 0; i <= 10; i++) {
                        fractions.add(i / 10.0);
                    }
                } else {
                    fractions.add(speedup);
                }
                r = WhatIf.predict(parent.open(), region, fractions, from, to, latency);
            }
        } catch (ProfileException | IllegalArgumentException e) {
            throw new CliException(e.getMessage());
        }
        List<WhatIf.Prediction> shown = region == null ? r.predictions().stream().limit(top).toList() : r.predictions();
        if (json) {
            System.out.println(Json.text(WhatIfJson.of(r, shown)));
            return 0;
        }
        System.out.printf(Locale.ROOT, "what-if (dCOZ) over the span %s → %s: [%s, %s] ms%s (%s; %s)%n",
                from == null ? "first event" : from, to == null ? "last event" : to, NoBound.fixed(r.spanNsLo() / 1e6, 3),
                NoBound.fixed(r.spanNsHi() / 1e6, 3), r.spanNsTruth() == null ? ""
                        : ", truth " + NoBound.fixed(r.spanNsTruth() / 1e6, 3), r.quality(), r.assumption());
        ReplayNote.printNotReplayed(r.notReplayed(), System.out);
        if (ReplayNote.printNoBound("predicted speedups", r.noBound(), System.out)) {
            return 0;
        }
        boolean truth = shown.stream().anyMatch(p -> p.truth() != null);
        System.out.printf(Locale.ROOT, "%-36s %8s %-21s %-23s%s%n", "region", "cut", "program speedup",
                "gain ms", truth ? "    truth" : "");
        for (WhatIf.Prediction p : shown) {
            System.out.printf(Locale.ROOT, "%-36s %7.1f%% [%7s%%, %7s%%] [%9.3f, %9.3f]%s%n", p.region(),
                    100 * p.fraction(), NoBound.fixed(100 * p.lo(), 3), NoBound.fixed(100 * p.hi(), 3),
                    ms(r, p.gainTicksLo()), ms(r, p.gainTicksHi()),
                    p.truth() == null ? "" : " " + NoBound.fixed(100 * p.truth(), 3) + "%");
            for (WhatIf.ProgressSpeedup s : p.progress()) {
                System.out.printf(Locale.ROOT, "    progress point %-21s throughput [%7s%%, %7s%%]%s (%d visits)%n",
                        s.point(), NoBound.fixed(100 * s.lo(), 3), NoBound.fixed(100 * s.hi(), 3), s.truth() == null ? ""
                                : " truth " + NoBound.fixed(100 * s.truth(), 3) + "%", s.visits());
            }
            if (p.latency() != null) {
                WhatIf.LatencySpeedup l = p.latency();
                System.out.printf(Locale.ROOT, "    latency of %-25s [%7s%%, %7s%%]%s (%d instances)%n", l.region(),
                        NoBound.fixed(100 * l.lo(), 3), NoBound.fixed(100 * l.hi(), 3), l.truth() == null ? ""
                                : " truth " + NoBound.fixed(100 * l.truth(), 3) + "%", l.instances());
            }
        }
        IncompleteNote.print(r.incomplete(), System.out);
        return 0;
    }

    private static double ms(WhatIf.Result r, long ticks) {
        return ticks * 1e3 / r.referenceTickHz();
    }
}
