/**
 * Reading what the agents wrote: process queues opened read-only, batches per thread, events
 * recovered from the ring files of killed processes, virtual threads' pieces put back in order,
 * what was lost and what the weaving matched ({@code docs/FORMAT.md}). Depends on {@code format},
 * its clock model and {@code profile} (the weaving report's form in {@code profile.json}); used by {@code consolidate}, {@code stats} and the benches.
 */
package dev.dprof.consolidator.read;
