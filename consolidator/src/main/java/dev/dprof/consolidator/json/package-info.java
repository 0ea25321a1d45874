/**
 * What every result's JSON form has in common ({@link dev.dprof.consolidator.json.ResultJson}):
 * the one mapper, bounds as {@code {lo, hi}}, a figure without a bound as {@code null}, the truth
 * only where the clocks were simulated. Each result's own form lives beside it, in its package
 * ({@code StatisticsJson}, {@code StragglerJson}, {@code WhatIfJson}, {@code CriticalPathJson},
 * {@code SyncQualityJson}, {@code RunStatisticsJson}); the command line and the report both print
 * those. Depends on nothing else of ours.
 */
package dev.dprof.consolidator.json;
