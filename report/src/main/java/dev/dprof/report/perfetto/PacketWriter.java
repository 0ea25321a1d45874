package dev.dprof.report.perfetto;

import com.google.protobuf.CodedOutputStream;
import dev.dprof.report.perfetto.proto.Trace;
import dev.dprof.report.perfetto.proto.TracePacket;
import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;

/**
 * Streams a Perfetto {@code Trace} (trace.proto): each packet is written on its own as one
 * occurrence of the repeated field {@code packet} (tag, length, bytes), so the file is a whole
 * {@code Trace} message while only one packet is ever held.
 */
final class PacketWriter implements Closeable {
    private final OutputStream file;
    private final CodedOutputStream out;
    private long packets;

    PacketWriter(OutputStream file) {
        this.file = file;
        this.out = CodedOutputStream.newInstance(file, 1 << 16);
    }

    void write(TracePacket packet) throws IOException {
        out.writeMessage(Trace.PACKET_FIELD_NUMBER, packet);
        packets++;
    }

    long packets() {
        return packets;
    }

    @Override
    public void close() throws IOException {
        try {
            out.flush();
        } finally {
            file.close();
        }
    }
}
