/**
 * Consolidation (DProf §4.3–§4.5): a first pass takes inventory of every queue, matching pairs
 * messages, collectives and handoffs, the calibration is tightened by the matched messages, every
 * thread's ticks become reference intervals, and a k-way merge writes one causally consistent
 * stream. Depends on {@code read}, {@code analysis.messages}, {@code profile} and
 * {@code calibrator/estimate}.
 */
package dev.dprof.consolidator.consolidate;
