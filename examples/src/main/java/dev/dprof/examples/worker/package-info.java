/**
 * What every example's worker process shares: the command line, {@code main}, the worker threads,
 * splitting work among ranks and threads, straggler passes that keep the result, and the span clock
 * (wall, CPU and JIT time) each worker prints. Depends on {@code examples.net}.
 */
package dev.dprof.examples.worker;
