/**
 * The examples' network: a full mesh of blocking TCP connections between ranks, over
 * {@code java.net.Socket} streams and NIO {@code SocketChannel}s so that a profiler sees both, with
 * point-to-point messages and the collectives the examples need. Depends on nothing of ours.
 */
package dev.dprof.examples.net;
