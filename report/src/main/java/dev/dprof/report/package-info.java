/**
 * What people look at: the self-contained HTML report ({@code html}) and the Perfetto trace
 * ({@code perfetto}) of a consolidated profile, both streaming with bounded memory.
 */
package dev.dprof.report;
