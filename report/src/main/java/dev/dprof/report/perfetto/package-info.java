/**
 * A consolidated profile as a Perfetto trace ({@code docs/FORMAT.md}, "Perfetto trace"): streamed
 * TrackEvent packets, a track per thread, regions as slices at the midpoints of their bounds with
 * the bounds as arguments, flows for matched messages, and a slice budget for large traces; the
 * protobuf classes are generated from {@code src/main/proto}. Reads the consolidator's
 * {@code profile} and {@code analysis.messages} (the flows' matching), and {@code format}.
 */
package dev.dprof.report.perfetto;
