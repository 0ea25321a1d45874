/**
 * What every example's worker process shares: the command line, {@code main}, the worker threads,
 * the lockstep loop of the iterative examples (each thread's part: body, then barrier, every
 * iteration), splitting work among ranks and threads, straggler passes that keep the result, and
 * the span clock (wall, CPU and JIT time) each worker prints. May depend on {@code examples.net}
 * only.
 */
package dev.dprof.examples.worker;
