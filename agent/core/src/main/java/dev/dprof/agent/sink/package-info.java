/**
 * From rings to disk: the {@code Drainer} moves each thread's events off the application's threads
 * into one Chronicle queue per process ({@code QueueSink}), encoded by {@code BatchWriter} in the
 * layouts of {@code format} ({@code docs/FORMAT.md}); plus the nominal tick rate for the header,
 * the check of the counter ({@code CounterCheck}), the network namespace for TCP connection records, and the probe warm-up. A full disk is refused
 * and counted, never a crash. May depend on {@code agent/bootstrap} (the rings), {@code instrument}'s
 * region table, {@code format} with its clock model, and Chronicle.
 */
package dev.dprof.agent.sink;
