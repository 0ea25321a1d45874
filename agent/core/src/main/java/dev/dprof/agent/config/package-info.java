/**
 * The agent's YAML configuration ({@code docs/CONFIG.md}) as immutable values: regions and their
 * kinds, class and method globs, value sources for keys and channels, the clock, calibration.
 * {@code ConfigLoader} is the entry and reports every problem as one {@code ConfigException} line
 * naming the file and line. Reading goes in two steps: {@code YamlComposer} turns the text into
 * SnakeYAML's node graph within the loader's limits, then {@code TopLevelReader} walks it with one
 * reader per section ({@code CalibrationReader}, {@code HandoffsReader}, {@code RegionsReader} and
 * its {@code ValueSourceReader}), all through {@code YamlNodes}' typed access. Read by the agent's
 * start, by {@code instrument} and by the command line's {@code suggest}; depends on {@code format} only.
 */
package dev.dprof.agent.config;
