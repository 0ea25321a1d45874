/**
 * Connected components by label propagation over N worker processes, on the same seeded R-MAT graph
 * as PageRank taken as undirected. Built on {@code examples.graph}, {@code examples.net} and
 * {@code examples.worker}.
 */
package dev.dprof.examples.cc;
