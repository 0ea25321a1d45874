package dev.dprof.report.perfetto;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.ExtensionRegistryLite;
import com.google.protobuf.WireFormat;
import dev.dprof.report.perfetto.proto.Trace;
import dev.dprof.report.perfetto.proto.TracePacket;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Reads an exported trace back with the schema's generated classes, one packet at a time. */
final class TraceFile {
    interface PacketSink {
        void accept(TracePacket packet) throws IOException;
    }

    private TraceFile() {
    }

    /** Every packet of the file, which must be one {@code Trace} message and nothing else. */
    static void forEach(Path file, PacketSink sink) throws IOException {
        try (InputStream stream = new BufferedInputStream(Files.newInputStream(file), 1 << 16)) {
            CodedInputStream in = CodedInputStream.newInstance(stream);
            in.setSizeLimit(Integer.MAX_VALUE);
            while (!in.isAtEnd()) {
                int tag = in.readTag();
                if (WireFormat.getTagFieldNumber(tag) != Trace.PACKET_FIELD_NUMBER
                        || WireFormat.getTagWireType(tag) != WireFormat.WIRETYPE_LENGTH_DELIMITED) {
                    throw new IOException(file + ": tag " + tag + " is not Trace.packet");
                }
                TracePacket.Builder packet = TracePacket.newBuilder();
                in.readMessage(packet, ExtensionRegistryLite.getEmptyRegistry());
                in.resetSizeCounter();
                sink.accept(packet.build());
            }
        }
    }

    static List<TracePacket> readAll(Path file) throws IOException {
        List<TracePacket> packets = new ArrayList<>();
        forEach(file, packets::add);
        return packets;
    }
}
