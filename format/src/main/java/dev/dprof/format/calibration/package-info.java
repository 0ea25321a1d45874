/**
 * The {@code .cal} file of one calibrating process ({@code docs/FORMAT.md}): an append-only text
 * file of the zeros {@code k1 < a < k2} it measured against its parent (DProf Alg. 4), usable line
 * by line after {@code kill -9}. Written by {@code calibrator/net}, read by
 * {@code calibrator/estimate}. May depend on {@code format} and {@code clock} only.
 */
package dev.dprof.format.calibration;
