/**
 * The dCSP straggler score (DProf §6, step 1): the share of the span in which a thread or process
 * is in the body region while all others wait in the barrier region, as bounds from the frame sweep
 * of {@code analysis.frames}. Reads {@code profile}; used by the CLI and the report.
 */
package dev.dprof.consolidator.analysis.straggler;
