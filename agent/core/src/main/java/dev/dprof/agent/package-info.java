/**
 * The agent's start: the entry points ({@code premain}, attach, called by agent/jar's entry point in
 * the agent's own class loader), opening the JDK packages it needs to that loader's module, defining
 * the bootstrap part in the bootstrap loader, keeping the JDK's warnings for the agent's own code
 * off the host's output, then configuration, clock, drainer and weaving in that order, and the JIT
 * warm-up before {@code main}. Whatever fails leaves the
 * application running unprofiled, with one line saying why. Ties together {@code config},
 * {@code instrument}, {@code sink}, {@code agent/bootstrap} and the in-agent calibration of
 * {@code calibrator/net}, and may depend on those and {@code format} only: nothing of the command
 * line's or the consolidator's, which the agent jar does not carry.
 */
package dev.dprof.agent;
