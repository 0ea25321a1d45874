/**
 * Statistics mode (docs/CONFIG.md, "Statistics mode"): the drainer hands every drained slot to a
 * {@link dev.dprof.agent.stats.StatisticsAggregator} instead of (or, for the tests, besides) writing it,
 * and every interval the aggregator writes one {@link dev.dprof.format.IntervalStatistics} record per
 * region. Independent of where the drainer runs: the aggregator only sees slots in the rings' layout.
 */
package dev.dprof.agent.stats;
