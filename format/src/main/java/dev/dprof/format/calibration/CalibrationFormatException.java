package dev.dprof.format.calibration;

/** A calibration file is malformed; the message names the file and the line. */
public final class CalibrationFormatException extends Exception {
    private static final long serialVersionUID = 1L;

    public CalibrationFormatException(String message) {
        super(message);
    }
}
