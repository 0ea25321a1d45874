/**
 * The agent's YAML configuration ({@code docs/CONFIG.md}) as immutable values: regions and their
 * kinds, class and method globs, value sources for keys and channels, the clock, calibration.
 * {@code ConfigLoader} reports every problem as one {@code ConfigException} line naming the file
 * and line. Read by the agent's start and by {@code instrument}; depends on {@code format} only.
 */
package dev.dprof.agent.config;
