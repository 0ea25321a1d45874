/**
 * A request/response service and its load generator as N processes: inside the server each request
 * crosses threads through queues (network, compute pool, a serial journal, reply), the shape whose
 * handoffs the agent records without configuration; {@code dprof demo --app service} checks dCOZ
 * (DProf §5.2) on it. Built on {@code examples.net} and {@code examples.worker}.
 */
package dev.dprof.examples.service;
