/**
 * The graph the graph examples share: a seeded R-MAT generator (Chakrabarti et al.; Graph500's
 * probabilities), compressed-sparse-row adjacency, and one rank's partition loaded the distributed
 * way (the paper's Alg. 7 line 2). Used by {@code pagerank} and {@code cc}; may depend on
 * {@code examples.net} (the partition is exchanged over the mesh) and {@code examples.worker}.
 */
package dev.dprof.examples.graph;
