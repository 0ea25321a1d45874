/**
 * The agent jar's root, all that the application's class loader can see of it: the entry point
 * ({@code AgentMain}, {@code Premain-Class} and {@code Agent-Class}) and the loader
 * ({@code AgentClassLoader}) that defines the rest of the agent from {@code inst/}, isolated from
 * the application (docs/DESIGN.md, "The agent jar"). May depend on the JDK only: it reaches the
 * agent's start ({@code dev.dprof.agent.DProfAgent}) by name through that loader, never by a
 * reference.
 */
package dev.dprof.agent.jar;
