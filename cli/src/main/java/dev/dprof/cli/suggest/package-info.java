/**
 * {@code dprof suggest}: regions found from the JDK Flight Recorder's samples of an unprofiled run.
 *
 * <p>A run is recorded with the JDK's own flight recorder ({@link dev.dprof.cli.suggest.FlightSettings}:
 * execution samples, and the parks, monitor waits and socket reads that show where threads wait), by
 * starting the program ({@link dev.dprof.cli.suggest.LaunchedRecording}) or by attaching to it
 * ({@link dev.dprof.cli.suggest.AttachedRecording}). {@link dev.dprof.cli.suggest.RecordingReader} turns
 * the recordings' stacks into {@link dev.dprof.cli.suggest.Frame}s for a {@link dev.dprof.cli.suggest.Tally},
 * which ranks the application's methods, and {@link dev.dprof.cli.suggest.SuggestionYaml} writes them as a
 * {@code dprof.yaml} the agent accepts as it is (docs/CONFIG.md, "Regions found for you"). DProf times only the
 * code regions a user marks (OOPSLA 2019, §4.2); its analyses want the work a thread does and the places where
 * it waits for others (the body and the barrier regions of §6, Alg. 7), which is what the three lists propose:
 * inclusive time, pool tasks, and waits.
 *
 * <p>May depend on the JDK's {@code jdk.jfr} and {@code jdk.attach} and on the agent's {@code config}
 * and {@code instrument} (the agent's own class globs and its rule of what it never weaves, so that
 * it suggests nothing the agent would refuse); nothing of the consolidator's.
 */
package dev.dprof.cli.suggest;
