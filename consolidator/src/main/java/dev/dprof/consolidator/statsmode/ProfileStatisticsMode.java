package dev.dprof.consolidator.statsmode;

import dev.dprof.consolidator.analysis.stats.Rates;
import dev.dprof.consolidator.profile.ProfileException;
import dev.dprof.consolidator.profile.ProfileInfo;
import dev.dprof.consolidator.read.RecordVisitor;
import dev.dprof.consolidator.read.RegionKinds;
import dev.dprof.format.ByteSource;
import dev.dprof.format.FormatException;
import dev.dprof.format.IntervalStatistics;
import dev.dprof.format.ProcessEnd;
import dev.dprof.format.RecordType;
import dev.dprof.format.RegionInfo;
import dev.dprof.format.profile.StatisticsFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.commons.numbers.fraction.BigFraction;

/**
 * A profile's statistics-mode figures ({@code statistics.bin}), and the scale that makes them bounds on
 * the reference clock: each process's exact rate bounds ({@code profile.json}'s {@code slopeLow/High}),
 * shown in ns at the reference's nominal rate, as every figure of {@code dprof analyze}.
 */
public final class ProfileStatisticsMode {
    private ProfileStatisticsMode() {
    }

    /** The run's figures with the reference interval they cover, or empty when the profile has none. */
    public record Figures(StatisticsModeRun run, Scale scale, long coveredFromLo, long coveredToHi) {
    }

    public static Optional<Figures> read(Path profileDir, ProfileInfo info, List<String> problems)
            throws ProfileException {
        Path file = profileDir.resolve(StatisticsFile.NAME);
        if (!Files.isRegularFile(file)) {
            return Optional.empty();
        }
        StatisticsModeRun run = new StatisticsModeRun(problems, new RegionKinds(problems));
        Map<Integer, RecordVisitor> visitors = new HashMap<>();
        List<Integer> order = new ArrayList<>();
        long[] covered = {Long.MAX_VALUE, Long.MIN_VALUE};
        try {
            StatisticsFile.read(file, new StatisticsFile.Visitor() {
                @Override
                public void process(int process, String label, double nominalTickHz, long probeCostX1024) {
                    order.add(process);
                    visitors.put(process, run.visitor(label, nominalTickHz, probeCostX1024, file.toString(),
                            new RecordVisitor() {
                            }));
                }

                @Override
                public void region(int process, int id, String name, String kind) {
                    visitor(process).region(new RegionInfo(id, name, kind, "", "", OptionalLong.empty()));
                }

                @Override
                public void interval(int process, long firstLo, long firstHi, long lastLo, long lastHi,
                                     ByteSource record) throws FormatException {
                    if (record.readByte("record type") != RecordType.STATISTICS) {
                        throw new FormatException("not a statistics record");
                    }
                    visitor(process).statistics(IntervalStatistics.decode(record));
                    covered[0] = Math.min(covered[0], firstLo);
                    covered[1] = Math.max(covered[1], lastHi);
                }

                @Override
                public void end(int process, long lostEvents) {
                    visitor(process).end(new ProcessEnd(0, 0, lostEvents, ""));
                }

                private RecordVisitor visitor(int process) {
                    RecordVisitor v = visitors.get(process);
                    if (v == null) {
                        throw new IllegalStateException("entry of process " + process + " before the process");
                    }
                    return v;
                }
            });
        } catch (IOException | FormatException | IllegalStateException e) {
            throw new ProfileException(file + ": " + e.getMessage());
        }
        Rates rates = new Rates(info);
        BigFraction nsPerReferenceTick = BigFraction.from(1e9 / info.referenceTickHz());
        BigFraction[] low = new BigFraction[order.size()];
        BigFraction[] high = new BigFraction[order.size()];
        for (int i = 0; i < order.size(); i++) {
            int p = order.get(i);
            if (p < 0 || p >= rates.low.length) {
                throw new ProfileException(file + ": process " + p + " is not in profile.json");
            }
            low[i] = rates.low[p].multiply(nsPerReferenceTick);
            high[i] = rates.high[p] == null ? null : rates.high[p].multiply(nsPerReferenceTick);
        }
        return Optional.of(new Figures(run, new Scale(low, high), covered[0], covered[1]));
    }
}
