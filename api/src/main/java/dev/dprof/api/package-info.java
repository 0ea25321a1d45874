/**
 * What an application may use to opt in: {@code @Region} and the no-op {@code DProf} calls that
 * state sends, receives, barriers and progress. Without the agent they do nothing; with it each is
 * woven into a probe. Depends on nothing.
 */
package dev.dprof.api;
