/**
 * {@code dprof suggest}: regions found from the JDK Flight Recorder's samples of an unprofiled run.
 *
 * <p>A run is recorded with the JDK's own flight recorder ({@link dev.dprof.cli.suggest.FlightSettings}:
 * execution samples, and the parks, monitor waits and socket reads that show where threads wait), by
 * starting the program ({@link dev.dprof.cli.suggest.LaunchedRecording}) or by attaching to it
 * ({@link dev.dprof.cli.suggest.AttachedRecording}). {@link dev.dprof.cli.suggest.RecordingReader} turns
 * the recordings' stacks into {@link dev.dprof.cli.suggest.Frame}s for a {@link dev.dprof.cli.suggest.Tally},
 * which ranks the application's methods the way the DProf paper's user picks regions (OOPSLA 2019, §3: the
 * hot compute, the exchanges, the waits), and {@link dev.dprof.cli.suggest.SuggestionYaml} writes them as a
 * {@code dprof.yaml} the agent accepts as it is (docs/CONFIG.md, "Regions found for you").
 */
package dev.dprof.cli.suggest;
