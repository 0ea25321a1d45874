/**
 * The clock model every reader of time goes through (DESIGN.md "Clocks", "Simulated clocks"): a
 * clock domain's name, its source (TSC or {@code System.nanoTime}) and the simulated transformation
 * {@code sim(t) = offset + rate·t + drift(t)}, built alike by the agent and the calibrator of a
 * machine; plus the host's name and load. In the {@code format} module, so it depends on nothing of
 * ours.
 */
package dev.dprof.clock;
