/**
 * The one place the matching rules live: sends with receives, collective exits with the enters
 * their flavour orders before them (Becker et al. 2009, §4.1), handoff takes with their puts, and
 * the long waits no edge explains. Used by the consolidator's merge and by every analysis, so that
 * both see the same edges; depends on {@code format} and {@code profile}.
 */
package dev.dprof.consolidator.analysis.messages;
