/**
 * Statistics over a consolidated profile (Li &amp; Zhang §6.3, dynamic records): per-region count,
 * total, mean, minimum and maximum as sound {@code Bound}s in reference ticks, from each process's
 * exact rate bounds, in one pass with memory independent of the trace's length; the truth beside
 * them for simulated clocks. Reads {@code profile} and {@code analysis.messages}.
 */
package dev.dprof.consolidator.analysis.stats;
