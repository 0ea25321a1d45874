package dev.dprof.format;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What the agent wove for the YAML's regions, written once by a process that ends normally, just
 * before its {@link ProcessEnd}: how many methods in how many classes, and for each configured region
 * how many of its methods were woven and, when none, why not ({@link Reason}) with the nearest name
 * that exists. A queue without it was written by a process that was killed (or by an agent older than
 * this record): then nobody knows what matched.
 *
 * <p>The sentences about a region ({@link Region#describe()}) live here so that the agent's end-of-run
 * lines and the offline tools ({@code dprof stats}, {@code dprof consolidate}) say the same words.
 *
 * @param configuredRegions the YAML's regions
 * @param wovenMethods      methods woven for them (a method loaded by two class loaders counts once)
 * @param wovenClasses      classes those methods are in
 * @param regions           every configured region, in the YAML's order
 */
public record WeavingSummary(int configuredRegions, long wovenMethods, long wovenClasses, List<Region> regions) {

    public WeavingSummary {
        regions = List.copyOf(regions);
    }

    /** Why a configured region matched no method; the codes are on disk and never renumbered. */
    public enum Reason {
        /** It matched at least one method, which was woven. */
        MATCHED(0, "matched"),
        /** Its class pattern names one class, and no class of that name was loaded. */
        NO_CLASS(1, "no class by that name was loaded"),
        /** The class was loaded, and has no method of that name. */
        NO_METHOD(2, "the class has no such method"),
        /** The class has a method of that name, but not with the descriptor the YAML gives. */
        DESCRIPTOR(3, "the descriptor did not match"),
        /** Its class pattern has wildcards, and no loaded class matched it. */
        NO_CLASS_MATCHED(4, "matched no loaded class"),
        /** Its method pattern has wildcards, and no method of the matching classes matched it. */
        NO_METHOD_MATCHED(5, "matched no method"),
        /** A method matched, but was not woven (the detail says why: abstract, excluded, a binding problem...). */
        NOT_WOVEN(6, "a method matched but was not woven");

        public final int code;
        public final String text;

        Reason(int code, String text) {
            this.code = code;
            this.text = text;
        }

        static Reason ofCode(int code) throws FormatException {
            for (Reason r : values()) {
                if (r.code == code) {
                    return r;
                }
            }
            throw new FormatException("unknown weaving reason " + code);
        }
    }

    /**
     * One configured region.
     *
     * @param name          its name
     * @param location      where it is configured ({@code file:line})
     * @param classPattern  the YAML's {@code class:}
     * @param methodPattern the YAML's {@code method:}
     * @param descriptor    the YAML's {@code descriptor:}, empty when it gives none
     * @param wovenMethods  how many methods were woven for it
     * @param reason        {@link Reason#MATCHED} when it has woven methods, else why it has none
     * @param nearest       the existing class, method or descriptor nearest to what was written; empty if none is near
     * @param detail        more about the reason (what kept a matched method from being woven), or empty
     */
    public record Region(String name, String location, String classPattern, String methodPattern, String descriptor,
                         long wovenMethods, Reason reason, String nearest, String detail) {
        public Region {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(location, "location");
            Objects.requireNonNull(classPattern, "classPattern");
            Objects.requireNonNull(methodPattern, "methodPattern");
            Objects.requireNonNull(descriptor, "descriptor");
            Objects.requireNonNull(reason, "reason");
            Objects.requireNonNull(nearest, "nearest");
            Objects.requireNonNull(detail, "detail");
        }

        /** What the YAML selects: {@code class#method} and the descriptor, if any. */
        public String target() {
            return classPattern + "#" + methodPattern + descriptor;
        }

        /**
         * One line about an unmatched region, e.g. {@code region 'ack' (dprof.yaml:12) org.x.Leeder#processAck:
         * no class by that name was loaded (nearest: org.x.Leader)}.
         */
        public String describe() {
            return "region '" + name + "' (" + location + ") " + target() + ": " + reason.text
                    + (detail.isEmpty() ? "" : " (" + detail + ")")
                    + (nearest.isEmpty() ? "" : " (nearest: " + nearest + ")");
        }
    }

    /** The regions that matched no method. */
    public List<Region> unmatched() {
        return regions.stream().filter(r -> r.reason() != Reason.MATCHED).toList();
    }

    /**
     * The line about what was woven, e.g. {@code woven 35 methods in 12 classes for 31 of 33 configured
     * regions}; the agent says it at the end of a run and on attach, the same way.
     */
    public String wovenLine() {
        return "woven " + wovenMethods + (wovenMethods == 1 ? " method" : " methods") + " in " + wovenClasses
                + (wovenClasses == 1 ? " class" : " classes") + " for " + (configuredRegions - unmatched().size())
                + " of " + configuredRegions + " configured regions";
    }

    public void encode(ByteSink out) {
        out.writeByte(RecordType.WEAVING);
        out.writeVarLong(configuredRegions);
        out.writeVarLong(wovenMethods);
        out.writeVarLong(wovenClasses);
        out.writeVarLong(regions.size());
        for (Region r : regions) {
            out.writeString(r.name);
            out.writeString(r.location);
            out.writeString(r.classPattern);
            out.writeString(r.methodPattern);
            out.writeString(r.descriptor);
            out.writeVarLong(r.wovenMethods);
            out.writeByte(r.reason.code);
            out.writeString(r.nearest);
            out.writeString(r.detail);
        }
    }

    public static WeavingSummary decode(ByteSource in) throws FormatException {
        int configured = in.readVarInt("configured regions", Integer.MAX_VALUE);
        long methods = in.readVarLong("woven methods");
        long classes = in.readVarLong("woven classes");
        int count = in.readVarInt("weaving regions", 1 << 24);
        List<Region> regions = new ArrayList<>(Math.min(count, 1024));
        for (int i = 0; i < count; i++) {
            regions.add(new Region(in.readString("region name"), in.readString("region location"),
                    in.readString("class pattern"), in.readString("method pattern"), in.readString("descriptor"),
                    in.readVarLong("region's woven methods"), Reason.ofCode(in.readByte("weaving reason")),
                    in.readString("nearest name"), in.readString("weaving detail")));
        }
        return new WeavingSummary(configured, methods, classes, regions);
    }
}
