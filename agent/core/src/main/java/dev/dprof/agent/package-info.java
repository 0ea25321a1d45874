/**
 * The agent's start: the entry points ({@code premain}, attach), putting the bootstrap part on the
 * boot class path, opening the JDK packages it needs, then configuration, clock, drainer and
 * weaving in that order, and the JIT warm-up before {@code main}. Whatever fails leaves the
 * application running unprofiled, with one line saying why. Ties together {@code config},
 * {@code instrument}, {@code sink}, {@code agent/bootstrap} and the in-agent calibration of
 * {@code calibrator/net}.
 */
package dev.dprof.agent;
