/**
 * The point synchronizations FreeZer is compared with ({@code docs/BASELINES.md}): regressions
 * (DProf §3.5, after Duda et al. 1987) and the controlled logical clock (Rabenseifner 1997; Becker
 * et al. 2009, §3–§4) re-timing a consolidated profile, and how well each keeps what must hold
 * (fast sends, DProf Table 2; interval deviation, Becker §6.2). Reads {@code profile} and
 * {@code analysis.messages}; used by the demo, the CLI and the report.
 */
package dev.dprof.consolidator.sync;
