package dev.dprof.calibrator.estimate;

/** Reading a {@link DriftModel} from the command line. */
public final class DriftModels {
    private DriftModels() {
    }

    /** {@code constant} or {@code bounded:PPM} (ppm per second). */
    public static DriftModel parse(String text) {
        if (text.equals("constant")) {
            return new DriftModel.Constant();
        }
        if (text.startsWith("bounded:")) {
            try {
                return new DriftModel.BoundedDrift(Double.parseDouble(text.substring("bounded:".length())));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("bad drift bound in '" + text + "'");
            }
        }
        throw new IllegalArgumentException("unknown drift model '" + text + "' (expected constant or bounded:PPM_PER_S)");
    }
}
