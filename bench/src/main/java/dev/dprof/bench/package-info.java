/**
 * The JMH benchmarks behind {@code ./dprof bench}: probe cost against JFR, disk per event, agent
 * overhead on a real cluster, start-up and memory, handoffs, virtual threads, sound conversion,
 * consolidation and the Perfetto export, each in forked JVMs and measured against a baseline run
 * beside it. Current figures are in {@code BENCHMARKS.md}. Depends on everything it measures.
 */
package dev.dprof.bench;
