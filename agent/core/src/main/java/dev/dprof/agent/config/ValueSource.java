package dev.dprof.agent.config;

import java.util.Objects;
import java.util.OptionalInt;

/**
 * Where a woven region reads a value at run time (a message key, a channel, a barrier's participants, a dynamic
 * region id). In YAML a value source is a small mapping:
 *
 * <pre>
 * {arg: N}                 the N-th argument (N &gt;= 0)                      -&gt; {@link Arg}
 * {field: NAME}            a field of {@code this}                            -&gt; {@link Field} (arg empty)
 * {getter: NAME}           a no-arg method of {@code this}                    -&gt; {@link Getter} (arg empty)
 * {arg: N, field: NAME}    a field of the N-th argument                       -&gt; {@link Field}
 * {arg: N, getter: NAME}   a no-arg method of the N-th argument               -&gt; {@link Getter}
 * {return: true}           the return value (the key of a receive region)     -&gt; {@link Return}
 * {property: NAME}         a system property, resolved once at agent start    -&gt; {@link Property}
 * {const: VALUE}           a constant string or integer                       -&gt; {@link Const}
 * </pre>
 */
public sealed interface ValueSource {

    /** The largest argument index a JVM method can have (255 parameter slots, one of them possibly {@code this}). */
    int MAX_ARG = 254;

    /** This source written back in the YAML form, e.g. {@code {arg: 1, getter: id}}; for messages. */
    String describe();

    /** The {@code index}-th argument of the woven method (0 = the first declared parameter). */
    record Arg(int index) implements ValueSource {
        public Arg {
            checkArg(index);
        }

        @Override
        public String describe() {
            return "{arg: " + index + "}";
        }
    }

    /** A field {@code name} of {@code this} (arg empty) or of the {@code arg}-th argument. */
    record Field(OptionalInt arg, String name) implements ValueSource {
        public Field {
            Objects.requireNonNull(arg, "arg");
            Objects.requireNonNull(name, "name");
            arg.ifPresent(ValueSource::checkArg);
        }

        @Override
        public String describe() {
            return arg.isPresent() ? "{arg: " + arg.getAsInt() + ", field: " + name + "}" : "{field: " + name + "}";
        }
    }

    /** A no-argument method {@code name} of {@code this} (arg empty) or of the {@code arg}-th argument. */
    record Getter(OptionalInt arg, String name) implements ValueSource {
        public Getter {
            Objects.requireNonNull(arg, "arg");
            Objects.requireNonNull(name, "name");
            arg.ifPresent(ValueSource::checkArg);
        }

        @Override
        public String describe() {
            return arg.isPresent() ? "{arg: " + arg.getAsInt() + ", getter: " + name + "}" : "{getter: " + name + "}";
        }
    }

    /** The return value of the woven method (only as the key of a receive region). */
    record Return() implements ValueSource {
        @Override
        public String describe() {
            return "{return: true}";
        }
    }

    /** The system property {@code name}, read once when the agent starts. */
    record Property(String name) implements ValueSource {
        public Property {
            Objects.requireNonNull(name, "name");
        }

        @Override
        public String describe() {
            return "{property: " + name + "}";
        }
    }

    /**
     * A constant. {@code text} is the value as written (a string, or an integer's decimal digits: participants and
     * other integer constants are normalised to plain decimal).
     */
    record Const(String text) implements ValueSource {
        public Const {
            Objects.requireNonNull(text, "text");
        }

        @Override
        public String describe() {
            return "{const: " + text + "}";
        }
    }

    private static void checkArg(int index) {
        if (index < 0 || index > MAX_ARG) {
            throw new IllegalArgumentException("argument index out of range 0.." + MAX_ARG + ": " + index);
        }
    }
}
