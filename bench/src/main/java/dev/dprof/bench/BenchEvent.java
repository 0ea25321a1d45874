package dev.dprof.bench;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * The JFR side of the comparison: a duration event with no fields of its own (JFR stamps start
 * time, duration and thread), no stack trace. One begin/commit records what a dprof ENTER + EXIT
 * pair records.
 */
@Name("dev.dprof.bench.Probe")
@Label("dprof bench probe")
@Category("dprof")
@Description("An empty region timed by JFR, for the probe benchmark")
@StackTrace(false)
public final class BenchEvent extends jdk.jfr.Event {
}
