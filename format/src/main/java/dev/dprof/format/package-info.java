/**
 * The one owner of the byte layouts of a process's queue ({@code docs/FORMAT.md}): record types,
 * event kinds and their codes, compact event batches, headers, region and thread tables, ring
 * files, TCP connections, handoff regions and collective flavours (Becker et al. 2009, §4.1).
 * Depends on nothing of ours but {@code clock} (a header states its clock source and simulated
 * clock); the agent's bootstrap part uses {@code EventCodes} only as inlined constants, every
 * other module reads and writes through these classes.
 */
package dev.dprof.format;
