/**
 * The possible-state view of DProf §5.1: what each thread's state can be at every moment given its
 * transitions as sound intervals, and a sweep over all threads that tells where a global state
 * holds certainly and where only possibly. Depends on nothing else of ours; used by
 * {@code analysis.straggler}.
 */
package dev.dprof.consolidator.analysis.frames;
