/**
 * The sound conversion of ticks to the reference clock (DProf §4.3; Alg. 3 and 4): zeros and
 * matched messages as half-planes, the exact polygon of feasible lines {@code (α, F)}, its
 * envelopes, drift windows and their check, composed along the calibration tree (DProf §4.1).
 * Proofs in {@code docs/BOUNDS.md}. Depends on {@code format}; used by the consolidator, the CLI
 * and the benches.
 */
package dev.dprof.calibrator.estimate;
