/**
 * A consolidated profile folder, {@code profile.json} and {@code events.bin}
 * ({@code docs/FORMAT.md}, "Consolidated profile"): what it holds and the streaming access to its
 * events. Written by {@code consolidate}; read by the analyses, {@code sync}, the report and the
 * CLI. May depend on {@code format} (with {@code format.profile}) only.
 */
package dev.dprof.consolidator.profile;
