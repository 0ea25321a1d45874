/**
 * The reading side of statistics mode: the {@code S} records of process queues
 * ({@link dev.dprof.format.IntervalStatistics}) summed per region over a run, and turned into sound
 * bounds with each process's rate bounds, as the trace's durations are.
 */
package dev.dprof.consolidator.statsmode;
