/**
 * What the tests of several modules need from the machine they run on: the JDKs installed under
 * {@code /usr/lib/jvm}, found by their {@code release} files ({@code Jdks}), and the one rule for a
 * prerequisite that is missing ({@code Prerequisite}): the test is skipped with the reason, and fails
 * with it when {@code CI=true}. Depends on nothing of ours (JUnit only), so that every test tree,
 * {@code agent/host-it}'s too, and the benchmarks can use it.
 */
package dev.dprof.testsupport;
