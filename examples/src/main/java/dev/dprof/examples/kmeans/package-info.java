/**
 * K-Means, the DProf paper's Alg. 7: over N worker processes with T threads each, and in one JVM
 * without the network; {@code assign} is the body region, the wait for the reduce the barrier
 * region, and one rank can be made a straggler. Built on {@code examples.net} and
 * {@code examples.worker}.
 */
package dev.dprof.examples.kmeans;
