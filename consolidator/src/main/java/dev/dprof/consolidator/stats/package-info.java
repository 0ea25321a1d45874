/**
 * Per-region counts and inclusive times straight from the process queues, without calibration
 * ({@code dprof stats}): a duration inside one thread needs only its thread's clock, so the figures
 * are in nanoseconds at each process's nominal rate, for display, not bounds. Reads via
 * {@code read}.
 */
package dev.dprof.consolidator.stats;
