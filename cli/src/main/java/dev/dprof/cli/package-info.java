/**
 * The {@code dprof} command line (picocli) and the shaded {@code dprof.jar}: demo, stats, attach,
 * calibrate, testbed, consolidate, analyze and report, each a thin command over the modules that do
 * the work, with one JSON writer and errors as one line. Depends on everything.
 */
package dev.dprof.cli;
