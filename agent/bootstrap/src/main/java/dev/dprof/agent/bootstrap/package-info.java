/**
 * What woven code calls: {@code Probes}, the handoff probes (queues, fork/join tasks, futures,
 * threads, monitors, long waits), TCP and virtual-thread probes, and the per-thread rings they
 * record into — native (the JNI TSC clock, C in {@code src/main/c}) or {@code JavaRing} without the
 * library. Defined in the bootstrap loader so that code of every class loader reaches it, hence no
 * dependencies: {@code format}'s constants only, inlined by javac. Drained by {@code agent/core}.
 */
package dev.dprof.agent.bootstrap;
