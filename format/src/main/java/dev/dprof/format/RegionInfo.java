package dev.dprof.format;

import java.util.OptionalLong;

/**
 * One entry of a process's region table: what a region id in the events means.
 *
 * @param kind     plain, send, receive, barrier or progress
 * @param origin   where the region was picked: yaml, annotation, api, tcp
 * @param location the woven method ({@code class#method descriptor}) or the config line
 * @param instance a fixed dynamic id resolved at start (e.g. from a system property), if any
 */
public record RegionInfo(int id, String name, String kind, String origin, String location, OptionalLong instance) {

    public void encode(ByteSink out) {
        out.writeByte(RecordType.REGION);
        out.writeVarLong(id);
        out.writeString(name);
        out.writeString(kind);
        out.writeString(origin);
        out.writeString(location);
        out.writeBoolean(instance.isPresent());
        if (instance.isPresent()) {
            out.writeSignedVarLong(instance.getAsLong());
        }
    }

    public static RegionInfo decode(ByteSource in) throws FormatException {
        int id = in.readVarInt("region id", (1 << 24) - 1);
        String name = in.readString("region name");
        String kind = in.readString("region kind");
        String origin = in.readString("region origin");
        String location = in.readString("region location");
        OptionalLong instance = in.readBoolean("region instance flag")
                ? OptionalLong.of(in.readSignedVarLong("region instance")) : OptionalLong.empty();
        return new RegionInfo(id, name, kind, origin, location, instance);
    }
}
