/**
 * Weaving with ByteBuddy: which methods get which advice (YAML regions, {@code @Region}, the
 * {@code DProf} API calls, and without configuration the JDK's handoffs, TCP sockets, virtual
 * threads and parks), the region table of the process, and what each YAML region matched. Every
 * advice body is one call into {@code agent/bootstrap}; a failing probe skips itself and is
 * counted. May depend on {@code config}, {@code agent/bootstrap} and {@code format} (and ByteBuddy,
 * ASM); never on the agent's start or {@code sink}.
 */
package dev.dprof.agent.instrument;
