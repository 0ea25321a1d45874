/**
 * The self-contained HTML report ({@code docs/REPORT.md}): everything it shows as one JSON document
 * (statistics, straggler scores, what-if curves, the critical path, the synchronization comparison,
 * a timeline sample with bounded memory) and the page that draws it with no network. Reads the
 * consolidator's {@code profile}, {@code analysis.*} and {@code sync}.
 */
package dev.dprof.report.html;
