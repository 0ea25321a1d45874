/**
 * The {@code dprof} command line (picocli) and the shaded {@code dprof.jar}: demo, stats, attach,
 * calibrate, testbed, consolidate, analyze and report, each a thin command over the modules that do
 * the work, with one JSON writer and errors as one line. Depends on everything. The {@code demo}
 * and {@code testbed} modules add their commands ({@code DemoCommand}, {@code TestbedCommand} and
 * their helpers) to this same package, so that they reach its package-private pieces; the command
 * line finds them by name when their jars are on its class path.
 */
package dev.dprof.cli;
