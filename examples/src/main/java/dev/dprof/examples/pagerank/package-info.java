/**
 * PageRank over N worker processes with T threads each, on a seeded R-MAT graph partitioned by
 * vertex, each rank pulling from its vertices' in-neighbours. Built on {@code examples.graph},
 * {@code examples.net} and {@code examples.worker}.
 */
package dev.dprof.examples.pagerank;
