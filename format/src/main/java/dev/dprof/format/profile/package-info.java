/**
 * The events of a consolidated profile ({@code events.bin}, {@code docs/FORMAT.md} "Consolidated
 * profile"): each a reference interval {@code [lo, hi]}, its raw tick and, on simulated clocks, its
 * truth, streamed in causal order in blocks without allocation per event. Written by the
 * consolidator, read by its analyses and the report. May depend on {@code format} only.
 */
package dev.dprof.format.profile;
