/**
 * What people look at: the self-contained HTML report ({@code html}) and the Perfetto trace
 * ({@code perfetto}) of a consolidated profile, both streaming with bounded memory. Depends on the
 * consolidator only; used by the {@code report} and {@code demo} commands and the export benchmark.
 */
package dev.dprof.report;
