package dev.dprof.format.calibration;

import dev.dprof.format.TickRate;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The calibration file of one process that measured a clock domain (layout in
 * {@code docs/FORMAT.md}): a text file of one record per line, written append-only and forced to
 * disk after every line, so that after {@code kill -9} every complete line is usable. A torn last
 * line is ignored by the reader; any other bad line is an error naming file and line.
 *
 * <pre>
 * dprof-calibration 1
 * domain ID parent ID|- host HOST source SOURCE tickHz HZ sim SPEC|-
 * zero EPOCH K1 A K2
 * ...
 * end
 * </pre>
 * All numbers are exact integers (ticks); nothing in it is rounded.
 */
public final class CalibrationFile implements AutoCloseable {
    public static final String SUFFIX = ".cal";
    private static final String MAGIC = "dprof-calibration 1";
    /** The largest tick magnitude a zero may hold: a 10 GHz counter reaches 2^62 after 14 years. */
    static final long MAX_TICK = 1L << 62;

    private final Path path;
    private final BufferedWriter out;
    private final FileChannel channel;

    private CalibrationFile(Path path, FileChannel channel) {
        this.path = path;
        this.channel = channel;
        this.out = new BufferedWriter(java.nio.channels.Channels.newWriter(channel, StandardCharsets.UTF_8));
    }

    /** Creates {@code dir/<domain>-<pid>.cal} and writes the header lines. */
    public static CalibrationFile create(Path dir, String domainId, Optional<String> parentDomainId, String host,
                                         String clockSource, double nominalTickHz, Optional<String> sim)
            throws IOException {
        Files.createDirectories(dir);
        String name = sanitize(domainId) + "-" + ProcessHandle.current().pid() + SUFFIX;
        Path path = dir.resolve(name);
        FileChannel channel = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING);
        CalibrationFile file = new CalibrationFile(path, channel);
        file.line(MAGIC);
        file.line(String.format(Locale.ROOT, "domain %s parent %s host %s source %s tickHz %s sim %s",
                token(domainId), parentDomainId.map(CalibrationFile::token).orElse("-"), token(host),
                token(clockSource), Double.toString(nominalTickHz), sim.map(CalibrationFile::token).orElse("-")));
        return file;
    }

    public Path path() {
        return path;
    }

    public void zero(Zero z) throws IOException {
        line("zero " + z.epoch() + " " + z.k1() + " " + z.a() + " " + z.k2());
    }

    /** Marks the file complete; the reader reports files without it as interrupted (still used). */
    public void end() throws IOException {
        line("end");
    }

    private void line(String text) throws IOException {
        out.write(text);
        out.write('\n');
        out.flush();
        channel.force(false);
    }

    @Override
    public void close() throws IOException {
        out.close();
    }

    /** Reads one file. */
    public static DomainCalibration read(Path file) throws IOException, CalibrationFormatException {
        byte[] bytes = Files.readAllBytes(file);
        String text = new String(bytes, StandardCharsets.UTF_8);
        boolean tornTail = !text.isEmpty() && !text.endsWith("\n");
        String[] lines = text.split("\n", -1);
        int usable = lines.length - 1; // the piece after the last '\n' is empty or torn
        if (usable < 2 || !lines[0].equals(MAGIC)) {
            throw new CalibrationFormatException(file + ":1: not a dprof calibration file (expected '" + MAGIC + "')");
        }
        String[] d = lines[1].split(" ");
        if (d.length != 12 || !d[0].equals("domain") || !d[2].equals("parent") || !d[4].equals("host")
                || !d[6].equals("source") || !d[8].equals("tickHz") || !d[10].equals("sim")) {
            throw new CalibrationFormatException(file + ":2: malformed domain line");
        }
        double hz;
        try {
            hz = Double.parseDouble(d[9]);
        } catch (NumberFormatException e) {
            throw new CalibrationFormatException(file + ":2: bad tickHz '" + d[9] + "'");
        }
        String rateProblem = TickRate.problem(hz);
        if (rateProblem != null) {
            throw new CalibrationFormatException(file + ":2: tickHz: " + rateProblem);
        }
        List<Zero> zeros = new ArrayList<>();
        boolean complete = false;
        for (int i = 2; i < usable; i++) {
            String line = lines[i];
            if (line.equals("end")) {
                complete = true;
                continue;
            }
            String[] t = line.split(" ");
            if (t.length != 5 || !t[0].equals("zero")) {
                throw new CalibrationFormatException(file + ":" + (i + 1) + ": malformed line '" + abbreviate(line) + "'");
            }
            try {
                Zero z = new Zero(Integer.parseInt(t[1]), Long.parseLong(t[2]), Long.parseLong(t[3]),
                        Long.parseLong(t[4]));
                if (z.epoch() < 0 || Math.abs(z.k1()) > MAX_TICK || Math.abs(z.a()) > MAX_TICK
                        || Math.abs(z.k2()) > MAX_TICK) {
                    throw new CalibrationFormatException(file + ":" + (i + 1) + ": a negative epoch or a tick beyond"
                            + " ±2^62 (no physical counter reaches it; the conversion's exact arithmetic needs the"
                            + " headroom)");
                }
                zeros.add(z);
            } catch (IllegalArgumentException e) {
                throw new CalibrationFormatException(file + ":" + (i + 1) + ": bad zero (" + e.getMessage() + ")");
            }
        }
        return new DomainCalibration(d[1], d[3].equals("-") ? Optional.empty() : Optional.of(d[3]), d[5], d[7], hz,
                d[11].equals("-") ? Optional.empty() : Optional.of(d[11]), List.copyOf(zeros), complete && !tornTail);
    }

    private static String abbreviate(String s) {
        return s.length() > 60 ? s.substring(0, 60) + "…" : s;
    }

    private static String token(String s) {
        if (s.isEmpty() || s.chars().anyMatch(c -> c <= ' ')) {
            throw new IllegalArgumentException("a calibration token must be non-empty without blanks: '" + s + "'");
        }
        return s;
    }

    /** A file-name-safe form of a domain id. */
    public static String sanitize(String domainId) {
        return domainId.replaceAll("[^A-Za-z0-9._-]", "_");
    }
}
