package dev.dprof.synthetic;

import java.io.IOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/**
 * {@code SyntheticRunMain --out DIR [--processes N] [--threads T] [--iterations I] [--events E]
 * [--seed S] [--drift PPM] [--body-us US] [--no-truth]}: writes a {@link SyntheticRun} to
 * {@code DIR/run} and {@code DIR/calibration} and what it holds to {@code DIR/synthetic.properties}.
 * The consolidation benchmark ({@code ./dprof bench consolidate}) runs it in a JVM of its own.
 */
public final class SyntheticRunMain {
    public static final String SUMMARY = "synthetic.properties";

    private SyntheticRunMain() {
    }

    public static void main(String[] args) throws IOException {
        Path out = null;
        int processes = 8;
        int threads = 4;
        int iterations = 200;
        long events = 2_000_000;
        long seed = 1;
        double drift = 0;
        long bodyMicros = 2_000;
        boolean truth = true;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--out" -> out = Path.of(args[++i]);
                case "--processes" -> processes = Integer.parseInt(args[++i]);
                case "--threads" -> threads = Integer.parseInt(args[++i]);
                case "--iterations" -> iterations = Integer.parseInt(args[++i]);
                case "--events" -> events = Long.parseLong(args[++i]);
                case "--seed" -> seed = Long.parseLong(args[++i]);
                case "--drift" -> drift = Double.parseDouble(args[++i]);
                case "--body-us" -> bodyMicros = Long.parseLong(args[++i]);
                case "--no-truth" -> truth = false;
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        if (out == null) {
            throw new IllegalArgumentException("--out DIR is required");
        }
        SyntheticRun.Spec spec = SyntheticRun.Spec.of(processes, threads, iterations, events, seed).drift(drift)
                .bodyMicros(bodyMicros).truthColumn(truth);
        long t0 = System.nanoTime();
        SyntheticRun.Result r = SyntheticRun.generate(spec, out);
        long ns = System.nanoTime() - t0;
        Properties p = new Properties();
        p.setProperty("spec", spec.toString());
        p.setProperty("runDir", r.runDir().toString());
        p.setProperty("calibrationDir", r.calibrationDir().toString());
        p.setProperty("events", Long.toString(r.events()));
        p.setProperty("messages", Long.toString(r.messages()));
        p.setProperty("processes", Integer.toString(r.processes().size()));
        p.setProperty("threads", Long.toString(r.processes().stream().mapToLong(x -> x.threads().size()).sum()));
        p.setProperty("straggler", Integer.toString(r.straggler()));
        p.setProperty("realSeconds", Double.toString((r.lastReal() - r.firstReal()) / (double) SyntheticRun.TSC_HZ));
        p.setProperty("truthColumn", Boolean.toString(truth));
        p.setProperty("generateNs", Long.toString(ns));
        try (Writer w = Files.newBufferedWriter(out.resolve(SUMMARY))) {
            p.store(w, "written by " + SyntheticRunMain.class.getName());
        }
        System.out.printf("generated %d events, %d messages (%s) in %.1f s%n", r.events(), r.messages(), spec, ns / 1e9);
    }
}
