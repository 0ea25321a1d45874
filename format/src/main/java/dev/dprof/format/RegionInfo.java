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

    /**
     * Whether the agent records events of {@code event}'s kind in a region of this region's kind:
     * an enter and an exit in a plain region (with or without instance), in a send or a receive region
     * around its send or receive, a barrier's or a collective's enter and exit, a progress point, a
     * handoff's put or take. Every other pair is impossible; a region kind this version does not know
     * may record anything. The kinds without a region (thread start and end, a virtual thread's mount
     * and unmount) carry region id 0, which no region has.
     */
    public boolean records(EventKind event) {
        return switch (kind) {
            case "plain" -> event == EventKind.ENTER || event == EventKind.ENTER_INSTANCE || event == EventKind.EXIT
                    || event == EventKind.EXIT_THROW;
            case "send" -> event == EventKind.ENTER || event == EventKind.EXIT || event == EventKind.EXIT_THROW
                    || event == EventKind.SEND;
            case "receive" -> event == EventKind.ENTER || event == EventKind.EXIT || event == EventKind.EXIT_THROW
                    || event == EventKind.RECEIVE;
            case "barrier", "collective" -> event == EventKind.BARRIER_ENTER || event == EventKind.BARRIER_EXIT;
            case "progress" -> event == EventKind.PROGRESS;
            case HandoffRegions.REGION_KIND -> event.handsOff();
            default -> true;
        };
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
