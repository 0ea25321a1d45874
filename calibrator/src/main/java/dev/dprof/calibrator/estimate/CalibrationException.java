package dev.dprof.calibrator.estimate;

/** Calibration data is missing or inconsistent; the message names the file or domain. */
public final class CalibrationException extends Exception {
    private static final long serialVersionUID = 1L;

    public CalibrationException(String message) {
        super(message);
    }
}
