/**
 * The causal analyses: one replay of a profile as the time-weighted DAG of DProf §5.2 that gives
 * what-if speedups (dCOZ, DProf §5.2 Alg. 6; progress points after Curtsinger &amp; Berger §3), the
 * critical path and its shares (Hollingsworth §2.1) and zeroing, all as bounds, and the
 * {@code Incomplete} note when the recorded edges do not explain the run. Reads {@code profile},
 * {@code analysis.messages} and {@code analysis.stats}; used by the CLI and the report.
 */
package dev.dprof.consolidator.analysis.causal;
