/**
 * The bundled multi-JVM programs' launcher: {@code Cluster} starts N worker processes of one
 * example on loopback and collects their exit codes, output and spans. The targets of the demo, the
 * integration tests and the overhead benchmark; depends on nothing of ours.
 */
package dev.dprof.examples;
